"""The parsing rule every parser follows, written once (DESIGN.md "One parsing rule, written once").

A parser reads an output line by line and says of every line what it made of it:

- **used**: understood completely, and it gave facts;
- **known**: understood completely, without a fact the checks judge (a header, a separator, a comment, a setting
  outside the parser's subject, an echo of the command);
- **unread**: not understood (an unknown form, a table row that does not fit its header, a cell that is not a
  number, a unit the parser cannot convert). It costs only its own facts; it is kept with its line number and
  the reason, shown in the item's evidence, and a check whose fact is missing names the unread lines that could
  hold it (the ``scope`` of a line: the port, section or row it belongs to; "" for anywhere).

A line the parser never classified is unread ("not recognized") when the reading ends: nothing is dropped
silently. A value is only ever taken from a used line. The whole output is refused (``ParseError``) only when
no line gave a fact: an error message, another command's output, an empty table.

Control characters are replaced by U+FFFD and noted (``Parsed.notes``); a NUL refuses the output (binary).

Typical use::

    reading = Reading(TOOL, text)
    for line in reading.content():
        with reading.row(line, scope=port):      # Unfit inside -> unread with its reason, else used
            value = integer(cell, "MTU")
            ports[port] = value                  # assigned last: a refused line leaves nothing behind
    return reading.done(ports)                   # Parsed(facts, unread, notes)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar

from pytest_gpufabric.parsers.textutil import TRAILING_PROMPT, fail, normalize

T = TypeVar("T")
U = TypeVar("U")

USED, KNOWN, UNREAD = "used", "known", "unread"
_USED, _KNOWN = (USED, "", ""), (KNOWN, "", "")  # the outcome of a used or known line (no reason, no scope)
NOT_RECOGNIZED = "not recognized"
REFUSAL_EXAMPLES = 3  # unread lines quoted in the message of a refused output
_THOUSANDS = re.compile(r"^\d{1,3}(,\d{3})+$")
_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
_MISSING_VALUES = frozenset({"N/A", "n/a", "NA", "-"})


class Unfit(ValueError):
    """A line or cell without the form the parser expects; ``Reading.row`` turns it into an unread line."""


@dataclass(frozen=True)
class Line:
    """One line of an output: its 1-based number in the output as received, and its text (without the line
    end and trailing whitespace; ANSI escapes removed; control characters replaced; tabs kept)."""

    number: int
    text: str

    @property
    def stripped(self) -> str:
        return self.text.strip()

    @property
    def words(self) -> str:
        """The text with every run of whitespace (tabs included) as one space: how prose lines are matched."""
        return " ".join(self.text.split())

    @property
    def indent(self) -> int:
        """Leading whitespace width, tabs at 8-column stops."""
        expanded = self.text.expandtabs(8)
        return len(expanded) - len(expanded.lstrip())


@dataclass(frozen=True)
class Unread:
    """A line the parser did not understand: its number, text and why; ``scope`` names the port, section or
    row whose facts it could hold ("" for anywhere in the output)."""

    line: int
    text: str
    reason: str
    scope: str = ""

    def describe(self) -> str:
        """``line 12: 'random-detect ecn ... 10 frames' (unknown unit 'frames')``."""
        return f"line {self.line}: {self.text.strip()[:120]!r} ({self.reason})"


@dataclass(frozen=True)
class Parsed(Generic[T]):
    """What a parser read: the facts, the lines it did not understand, and notes about the output itself."""

    tool: str
    facts: T
    unread: tuple[Unread, ...] = ()
    notes: tuple[str, ...] = ()

    def unread_for(self, scopes: tuple[str, ...] | None = None) -> tuple[Unread, ...]:
        """The unread lines that could hold a fact of ``scopes`` (theirs and those of no scope); all without."""
        if scopes is None:
            return self.unread
        return tuple(u for u in self.unread if not u.scope or u.scope in scopes)

    def map(self, func: Callable[[T], U]) -> Parsed[U]:
        """The same reading with its facts transformed (a command read for one facet of its facts)."""
        return Parsed(self.tool, func(self.facts), self.unread, self.notes)


def facts_of(value: Any) -> Any:
    """The facts of a parser's result, whether it returned ``Parsed`` or plain facts."""
    return value.facts if isinstance(value, Parsed) else value


class Reading:
    """The bookkeeping of one output being read: its lines and what became of each."""

    def __init__(self, tool: str, text: str) -> None:
        self.tool = tool
        normalized, notes = normalize(tool, text)
        self.notes: list[str] = notes
        self._texts: tuple[str, ...] = tuple([raw.rstrip() for raw in normalized.split("\n")])  # line n at n - 1
        self._outcome: dict[int, tuple[str, str, str]] = {}  # line number -> (outcome, reason, scope)
        for number in range(len(self._texts), 0, -1):  # a shell prompt left at the end of a capture
            stripped = self._texts[number - 1].lstrip()
            if stripped and not TRAILING_PROMPT.match(stripped):
                break
            if stripped:
                self._outcome[number] = _KNOWN

    @cached_property
    def lines(self) -> tuple[Line, ...]:
        """Every line of the output, blank ones included, in order (line n at index n - 1)."""
        return tuple([Line(number, text) for number, text in enumerate(self._texts, 1)])

    def content(self) -> list[Line]:
        """The non-blank lines not classified yet, in order."""
        outcome = self._outcome
        return [line for line in self.lines if line.text and line.number not in outcome]  # texts are right-stripped

    def content_texts(self) -> list[tuple[int, str]]:
        """``content()`` as (line number, text) pairs: for a parser that reads many lines and needs a ``Line`` of
        few of them (mark the others with ``used_at`` / ``known_at``)."""
        outcome = self._outcome
        return [(number, text) for number, text in enumerate(self._texts, 1) if text and number not in outcome]

    def used(self, line: Line) -> None:
        """``line`` gave facts."""
        self._outcome[line.number] = _USED

    def known(self, line: Line) -> None:
        """``line`` is understood and holds no fact the checks judge."""
        self._outcome[line.number] = _KNOWN

    def used_at(self, number: int) -> None:
        """Line ``number`` gave facts."""
        self._outcome[number] = _USED

    def used_all(self, numbers: Iterable[int]) -> None:
        """Lines ``numbers`` gave facts."""
        self._outcome.update(dict.fromkeys(numbers, _USED))

    def known_at(self, number: int) -> None:
        """Line ``number`` is understood and holds no fact the checks judge."""
        self._outcome[number] = _KNOWN

    def unread(self, line: Line, reason: str, scope: str = "") -> None:
        """``line`` was not understood; it costs only its own facts."""
        self._outcome[line.number] = (UNREAD, reason, scope)

    def outcome(self, line: Line) -> str | None:
        """``used``, ``known``, ``unread``, or None while the line is not classified."""
        found = self._outcome.get(line.number)
        return found[0] if found else None

    @contextmanager
    def row(self, line: Line, scope: str = "") -> Iterator[None]:
        """Read one line inside the block: ``Unfit`` raised in it makes the line unread (with the exception's
        text as the reason), otherwise the line is used. Assign facts last in the block."""
        try:
            yield
        except Unfit as exc:
            self.unread(line, str(exc), scope)
        else:
            self.used(line)

    def rest_known(self) -> None:
        """Every line not classified yet is known: for an output read as a whole (JSON), whose facts and
        problems the parser has tied to lines with ``line_of``."""
        for line in self.content():
            self.known(line)

    def unread_lines(self) -> tuple[Unread, ...]:
        """Every unread line so far, the not yet classified ones included, in line order."""
        found = []
        for number, text in enumerate(self._texts, 1):
            outcome = self._outcome.get(number)
            if outcome is None and text:
                found.append(Unread(number, text, NOT_RECOGNIZED))
            elif outcome is not None and outcome[0] == UNREAD:
                found.append(Unread(number, text, outcome[1], outcome[2]))
        return tuple(found)

    def done(self, facts: T, *, nothing: str = "nothing in it is understood") -> Parsed[T]:
        """The result: facts, unread lines and notes. ParseError (``nothing`` and the first unread lines) when
        no line gave a fact."""
        unread = self.unread_lines()
        if _USED not in self._outcome.values():  # every used line's outcome is _USED
            examples = "; ".join(u.describe() for u in unread[:REFUSAL_EXAMPLES])
            fail(self.tool, nothing + (f" ({examples})" if examples else ""))
        return Parsed(self.tool, facts, unread, tuple(self.notes))


def integer(text: str, what: str) -> int:
    """A whole number (``1,200`` with thousands separators too); ``Unfit`` naming ``what`` otherwise."""
    value = text.strip()
    if _THOUSANDS.match(value):
        value = value.replace(",", "")
    if not value.isdigit() or not value.isascii():
        raise Unfit(f"{what}: expected a whole number, found {text.strip()!r}")
    return int(value)


def count(text: str, what: str) -> int | None:
    """A counter cell: a whole number, or None where the output says it has none (``N/A``, ``-``). An empty
    cell is ``Unfit``: a table that prints a mark for a missing counter leaves no cell empty unless the row was
    damaged (its value pushed under another column)."""
    if not text.strip():
        raise Unfit(f"{what}: empty cell")
    return None if text.strip() in _MISSING_VALUES else integer(text, what)


def decimal(text: str, what: str) -> float:
    """A finite decimal number; ``Unfit`` naming ``what`` otherwise."""
    value = text.strip()
    if not _DECIMAL.fullmatch(value):
        raise Unfit(f"{what}: expected a number, found {value!r}")
    return float(value)


def line_of(reading: Reading, needle: str, after: Line | None = None) -> Line:
    """The first line containing ``needle`` (after line ``after`` when given), for outputs read as a whole (JSON);
    else ``after`` or the first line."""
    start = after.number if after is not None else 0
    return next((line for line in reading.lines[start:] if needle in line.text), after or reading.lines[0])
