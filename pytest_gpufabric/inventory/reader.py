"""Typed reading of YAML nodes: every wrong type, unknown, missing or duplicate key becomes a logged problem."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from pytest_gpufabric.inventory.problems import ProblemLog
from pytest_gpufabric.inventory.rules import Invalid

T = TypeVar("T")
R = TypeVar("R")

_TAG = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL, TIMESTAMP = (_TAG + name for name in ("str", "int", "float", "bool", "null", "timestamp"))
_SCALAR_TAGS = frozenset({STR, INT, FLOAT, BOOL, NULL, TIMESTAMP})
_MAP = _TAG + "map"
_SEQ = _TAG + "seq"


def line_of(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def child(location: str, key: str) -> str:
    return f"{location}.{key}" if location else key


def item(location: str, index: int) -> str:
    return f"{location}[{index}]"


def is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == NULL


def describe(node: yaml.Node) -> str:
    """What a node holds, in the words of an error message."""
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    text = str(node.value)
    return {
        NULL: "nothing (null)",
        BOOL: f"the boolean {text}",
        INT: f"the integer {text}",
        FLOAT: f"the number {text}",
        TIMESTAMP: f"the date {text}",
    }.get(node.tag, f"the string {text!r}")


@dataclass(frozen=True)
class Entry:
    """One key of a mapping: its value node and where it is."""

    key: str
    node: yaml.Node
    location: str
    key_line: int

    @property
    def line(self) -> int:
        """The line of the value (where a scalar's problem is shown)."""
        return line_of(self.node)


class Reader:
    """Reads typed values from nodes, logging a problem (and returning None) for each value it rejects."""

    def __init__(self, log: ProblemLog) -> None:
        self.log = log
        self._constructor = SafeConstructor()
        self._flattened: dict[int, list[tuple[yaml.Node, yaml.Node]]] = {}

    def problem(self, node: yaml.Node, location: str, message: str) -> None:
        self.log.add(line_of(node), location, message)

    def _wrong_type(self, node: yaml.Node, location: str, expected: str) -> None:
        self.problem(node, location, f"expected {expected}, found {describe(node)}")

    def apply(self, node: yaml.Node, location: str, value: T, rule: Callable[[T], R]) -> R | None:
        """The rule's result for `value`; None (with the problem logged) if the rule rejects it."""
        try:
            return rule(value)
        except Invalid as error:
            self.problem(node, location, str(error))
            return None

    def _scalar_ok(self, node: yaml.Node, location: str, expected: str) -> bool:
        if not isinstance(node, yaml.ScalarNode):
            self._wrong_type(node, location, expected)
            return False
        if node.tag not in _SCALAR_TAGS:
            self.problem(node, location, f"unsupported YAML tag {node.tag!r} (expected {expected})")
            return False
        return True

    def _construct(self, node: yaml.ScalarNode, location: str) -> object:
        try:
            return self._constructor.construct_object(node, deep=True)
        except (ConstructorError, ValueError, OverflowError) as error:
            self.problem(node, location, f"cannot read {node.value!r}: {error}")
            return None

    def string(self, node: yaml.Node, location: str, rule: Callable[[str], R] | None = None) -> R | str | None:
        """A string; an unquoted scalar is taken as written (`pci: 0000:05:00.0` and `name: 01` stay text)."""
        if not self._scalar_ok(node, location, "a string"):
            return None
        if node.tag == NULL:
            self._wrong_type(node, location, "a string")
            return None
        text = str(node.value)
        return text if rule is None else self.apply(node, location, text, rule)

    def integer(self, node: yaml.Node, location: str, rule: Callable[[int], int] | None = None) -> int | None:
        if not self._scalar_ok(node, location, "an integer"):
            return None
        if node.tag != INT:
            self._wrong_type(node, location, "an integer")
            return None
        value = self._construct(node, location)
        if not isinstance(value, int):
            return None
        return value if rule is None else self.apply(node, location, value, rule)

    def number(self, node: yaml.Node, location: str, rule: Callable[[float], float] | None = None) -> float | None:
        if not self._scalar_ok(node, location, "a number"):
            return None
        if node.tag not in (INT, FLOAT):
            self._wrong_type(node, location, "a number")
            return None
        value = self._construct(node, location)
        if not isinstance(value, (int, float)):
            return None
        return value if rule is None else self.apply(node, location, value, rule)

    def boolean(self, node: yaml.Node, location: str) -> bool | None:
        if not self._scalar_ok(node, location, "true or false"):
            return None
        if node.tag != BOOL:
            self._wrong_type(node, location, "true or false")
            return None
        value = self._construct(node, location)
        return value if isinstance(value, bool) else None

    def plain_scalar(self, node: yaml.Node, location: str) -> bool | int | float | str | None:
        """A number, string or boolean (null is rejected: a value must be given)."""
        expected = "a number, a string or true/false"
        if not self._scalar_ok(node, location, expected):
            return None
        if node.tag in (NULL, TIMESTAMP):
            self._wrong_type(node, location, expected)
            return None
        if node.tag == STR:
            return str(node.value)
        value = self._construct(node, location)
        if isinstance(value, float) and not math.isfinite(value):
            self.problem(node, location, f"{node.value} is not allowed (expected a finite number)")
            return None
        return value if isinstance(value, (bool, int, float)) else None

    def sequence(self, node: yaml.Node, location: str) -> list[yaml.Node] | None:
        if not isinstance(node, yaml.SequenceNode) or node.tag != _SEQ:
            self._wrong_type(node, location, "a list")
            return None
        return list(node.value)

    def mapping(self, node: yaml.Node, location: str, allowed: Sequence[str]) -> MappingView | None:
        """A mapping whose keys must be among `allowed` (an empty `allowed` accepts any key)."""
        if not isinstance(node, yaml.MappingNode) or node.tag != _MAP:
            self._wrong_type(node, location, "a mapping")
            return None
        entries = self._entries(node, location)
        if entries is None:
            return None
        view = MappingView(self, node, location, entries)
        if allowed:
            view.reject_unknown(allowed)
        return view

    def _entries(self, node: yaml.MappingNode, location: str) -> dict[str, Entry] | None:
        pairs = self._flattened.get(id(node))
        if pairs is None:
            pairs = self._check_and_flatten(node, location)
            if pairs is None:
                return None
            self._flattened[id(node)] = pairs
        entries: dict[str, Entry] = {}
        for key_node, value_node in pairs:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != NULL:
                key = str(key_node.value)
                entries.pop(key, None)  # the last value wins, and takes the last place
                entries[key] = Entry(key, value_node, child(location, key), line_of(key_node))
        return entries

    def _check_and_flatten(self, node: yaml.MappingNode, location: str) -> list[tuple[yaml.Node, yaml.Node]] | None:
        """Reports duplicate and non-name keys, then applies YAML merge keys (`<<: *anchor`)."""
        first_line: dict[str, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _TAG + "merge":
                continue
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == NULL:
                self._wrong_type(key_node, location or "top level", "a key name")
                continue
            key = str(key_node.value)
            if key in first_line:
                self.problem(
                    key_node,
                    child(location, key),
                    f"duplicate key (first given at line {first_line[key]}; each key may appear once)",
                )
            else:
                first_line[key] = line_of(key_node)
        try:
            self._constructor.flatten_mapping(node)
        except ConstructorError as error:
            self.problem(node, location or "top level", f"cannot merge: {error.problem}")
            return None
        return list(node.value)


class MappingView:
    """A validated YAML mapping: keys in file order, with typed, located access."""

    def __init__(self, reader: Reader, node: yaml.MappingNode, location: str, entries: dict[str, Entry]) -> None:
        self.reader = reader
        self.node = node
        self.location = location
        self.entries = entries

    @property
    def line(self) -> int:
        return line_of(self.node)

    def reject_unknown(self, allowed: Sequence[str]) -> None:
        for key, entry in self.entries.items():
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.reader.log.add(
                    entry.key_line, entry.location, f"unknown key ({hint}allowed keys: {', '.join(allowed)})"
                )

    def get(self, key: str) -> Entry | None:
        """The entry of an optional key; None if it is absent or null."""
        entry = self.entries.get(key)
        if entry is None or is_null(entry.node):
            return None
        return entry

    def require(self, key: str) -> Entry | None:
        """The entry of a required key; logs a problem if it is absent or null."""
        entry = self.entries.get(key)
        if entry is None:
            self.reader.log.add(self.line, child(self.location, key), "missing (this key is required)")
            return None
        if is_null(entry.node):
            self.reader.problem(entry.node, entry.location, "has no value (this key is required)")
            return None
        return entry
