"""The statement tree of a Junos configuration, from either form ``show configuration`` prints: the hierarchical
form (``interfaces { et-0/0/0 { mtu 9216; } }``) or ``| display set`` (``set interfaces et-0/0/0 mtu 9216``).

Both give the same tree of ``Node`` statements, so the readers of junos_config.py see one structure. Every line of
the configuration's syntax is known here (the readers mark the lines whose facts they take used or unread), except
a line that is not a statement of either form, which is unread.

What is not in effect is not in the tree: an ``inactive:`` statement (hierarchical form) and a ``deactivate``
path (set form) with everything under them; their lines are known (understood: inactive).

The set form names only the path of each leaf, so where a path's words open a statement of the hierarchical form
comes from the shape of the hierarchies the readers use (``_SHAPE``: how many words each keyword takes, which
levels are named blocks); elsewhere a set line's remaining words form one statement. Values a set line gives one at
a time (``fill-level 55`` / ``fill-level 90``, a code point per line) are joined into the list the hierarchical
form prints, and the attributes of a forwarding class into its one ``class`` statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pytest_gpufabric.parsers.reading import Line, Reading

_WORD = re.compile(r'"(?:[^"\\]|\\.)*"|\[|\]|[^\s\[\]";]+')
_STATE_PREFIX = re.compile(r"^(inactive|protect|replace|delete): ")
_SET_LINE = re.compile(r"^(set|deactivate|activate) \S")


@dataclass
class Node:
    """One configuration statement: its words, its child statements and the line it stands on."""

    words: tuple[str, ...]
    line: Line
    children: list[Node] = field(default_factory=list)

    def find(self, *prefix: str) -> list[Node]:
        return [c for c in self.children if c.words[:len(prefix)] == prefix]

    def first(self, *prefix: str) -> Node | None:
        found = self.find(*prefix)
        return found[0] if found else None

    def value(self, key: str) -> str | None:
        node = self.first(key)
        return node.words[1] if node is not None and len(node.words) == 2 else None


def words_of(text: str) -> tuple[str, ...]:
    """A statement's words, quotes removed (``description "a b"`` -> ``description``, ``a b``)."""
    return tuple(w.strip('"') for w in _WORD.findall(text))


def statement_tree(reading: Reading) -> Node:
    """The tree of the configuration, from whichever form it is printed in."""
    content = [line for line in reading.content() if not line.stripped.startswith(("#", "/*", "*"))]
    if content and sum(1 for line in content if _SET_LINE.match(line.stripped)) * 2 > len(content):
        return _set_tree(reading)
    return _hierarchical_tree(reading)


# ----------------------------------------------------------------------------------------------- hierarchical form

def _hierarchical_tree(reading: Reading) -> Node:
    root = Node(("",), reading.lines[0])
    stack = [root]
    in_comment = False
    pending: list[Line] = []  # a statement whose bracketed list runs over several lines
    for line in reading.content():
        text = line.stripped
        if in_comment or (not pending and text.startswith("/*")):
            in_comment = "*/" not in text
            reading.known(line)
            continue
        text = re.sub(r"\s*##.*$|\s*#(?! ).*$", "", text) if not text.startswith("#") else ""
        if pending:
            pending.append(line)
            if "]" not in text:
                continue
            text = " ".join(p.stripped for p in pending)
            line, lines, pending = pending[0], pending, []
        else:
            lines = [line]
        if not text or text.startswith("#"):
            reading.known(line)
            continue
        inactive = text.startswith("inactive: ")
        text = _STATE_PREFIX.sub("", text)
        if text.count("[") > text.count("]") and not text.endswith(("{", ";")):
            pending = [line]  # ``members [ a b`` continued on the next line
            continue
        for each in lines:
            reading.known(each)
        if text == "}":
            if len(stack) > 1:
                stack.pop()
            else:
                reading.unread(line, "a closing brace without an opening one")
            continue
        words = words_of(text[:-1]) if text.endswith(("{", ";")) else ()
        if not text.endswith(("{", ";")):
            reading.unread(line, "not a configuration statement (no ';' or '{' at its end)")
            continue
        if not words:
            reading.unread(line, "a statement without a keyword")
            if text.endswith(";"):
                continue
            words = ("",)  # an anonymous block: kept so that its closing brace closes it
        node = Node(words, line)
        if not inactive:  # an inactive statement is not in effect: kept out of the tree with what is under it
            stack[-1].children.append(node)
        if text.endswith("{"):
            stack.append(node)
    for line in pending:
        reading.unread(line, "a bracketed list that does not end")
    return root


# ----------------------------------------------------------------------------------------------------- set form

_LEAF = "leaf"  # the remaining words form one statement
_NAMED = "named"  # the next word names a block, whose contents follow the given shape

Shape = Any  # _LEAF, a dict keyword -> (words the keyword takes, shape of its contents), or (_NAMED, shape)

_CLASSIFIER: Shape = (1, {"forwarding-class": (1, _LEAF)})
_COS_INTERFACE: Shape = {"unit": (1, {"classifiers": (0, _LEAF), "rewrite-rules": (0, _LEAF)}),
                         "classifiers": (0, _LEAF), "rewrite-rules": (0, _LEAF), "forwarding-class-set": (1, _LEAF)}
_SHAPE: Shape = {
    "interfaces": (0, (_NAMED, {"unit": (1, _LEAF), "ether-options": (0, _LEAF), "gigether-options": (0, _LEAF),
                                "optics-options": (0, _LEAF), "aggregated-ether-options": (0, _LEAF)})),
    "class-of-service": (0, {
        "classifiers": (0, {kind: _CLASSIFIER for kind in ("dscp", "dscp-ipv6", "ieee-802.1", "exp", "inet-precedence")}),
        "forwarding-classes": (0, _LEAF),
        "congestion-notification-profile": (0, (_NAMED, {
            "input": (0, {"dscp": (0, {"code-point": (1, _LEAF)}), "ieee-802.1": (0, {"code-point": (1, _LEAF)})}),
            "output": (0, {"ieee-802.1": (0, {"code-point": (1, _LEAF)})}),
            "pfc-watchdog": (0, _LEAF)})),
        "scheduler-maps": (0, (_NAMED, _LEAF)),
        "schedulers": (0, (_NAMED, _LEAF)),
        "drop-profiles": (0, (_NAMED, {"interpolate": (0, _LEAF)})),
        "traffic-control-profiles": (0, (_NAMED, _LEAF)),
        "interfaces": (0, (_NAMED, _COS_INTERFACE)),
    }),
}
# Leaf statements whose last word is one value of a list the set form gives one line per value.
_LIST_KEYS = frozenset({"code-points", "fill-level", "drop-probability", "flow-control-queue", "members"})


def _set_tree(reading: Reading) -> Node:
    root = Node(("",), reading.lines[0])
    deactivated: list[tuple[tuple[str, ...], Line]] = []
    for line in reading.content():
        text = re.sub(r"\s*##.*$", "", line.stripped)
        words = words_of(text)
        if not words or text.startswith("#"):
            reading.known(line)
            continue
        if words[0] not in ("set", "deactivate", "activate") or len(words) < 2:
            reading.unread(line, "not a 'set' statement of the display set form")
            continue
        reading.known(line)
        if words[0] == "deactivate":
            deactivated.append((words[1:], line))
        elif words[0] == "set":
            _place(root, list(words[1:]), _SHAPE, line)
    for path, _ in deactivated:
        _remove(root, list(path), _SHAPE)
    return root


def _child(parent: Node, words: tuple[str, ...], line: Line) -> Node:
    """The block ``words`` of ``parent``, created on the first line that names it."""
    for child in parent.children:
        if child.words == words:
            return child
    node = Node(words, line)
    parent.children.append(node)
    return node


def _place(parent: Node, words: list[str], shape: Shape, line: Line) -> None:
    """Put the statement a set line's ``words`` give under ``parent``, opening blocks as ``shape`` says."""
    if not words:
        return
    if isinstance(shape, tuple) and shape[0] == _NAMED:
        _place(_child(parent, (words[0],), line), words[1:], shape[1], line)
        return
    if isinstance(shape, dict) and words[0] in shape and len(words) > shape[words[0]][0] + 1:
        taken, inner = shape[words[0]]
        _place(_child(parent, tuple(words[:taken + 1]), line), words[taken + 1:], inner, line)
        return
    _leaf(parent, tuple(words), line)


def _leaf(parent: Node, words: tuple[str, ...], line: Line) -> None:
    """A leaf statement; a list value joins the list of the same statement, a forwarding class's attribute its
    ``class`` statement (queue-num first, as the hierarchical form prints it)."""
    for child in parent.children:
        if words[0] == "class" and child.words[:2] == words[:2] and len(words) > 2:
            attributes = _class_attributes(child.words[2:] + words[2:])
            child.words = words[:2] + attributes
            return
        if (len(words) >= 2 and words[-2] in _LIST_KEYS and child.words[:len(words) - 1] == words[:-1]
                and words[-1] not in child.words[len(words) - 1:]):
            child.words = child.words + words[-1:]
            return
    parent.children.append(Node(words, line))


def _class_attributes(words: tuple[str, ...]) -> tuple[str, ...]:
    """A forwarding class's attributes with ``queue-num N`` first."""
    if "queue-num" in words:
        at = words.index("queue-num")
        return words[at:at + 2] + words[:at] + words[at + 2:]
    return words


def _remove(parent: Node, path: list[str], shape: Shape) -> None:
    """Take out of the tree the statement (and everything under it) that a ``deactivate`` path names."""
    if not path:
        return
    if isinstance(shape, tuple) and shape[0] == _NAMED:
        nodes, rest, inner = [c for c in parent.children if c.words == (path[0],)], path[1:], shape[1]
    elif isinstance(shape, dict) and path[0] in shape and len(path) > shape[path[0]][0] + 1:
        taken = shape[path[0]][0]
        nodes = [c for c in parent.children if c.words == tuple(path[:taken + 1])]
        rest, inner = path[taken + 1:], shape[path[0]][1]
    else:
        parent.children = [c for c in parent.children if c.words[:len(path)] != tuple(path)]
        return
    for node in nodes:
        if rest:
            _remove(node, rest, inner)
        else:
            parent.children.remove(node)
