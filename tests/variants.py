"""Variant tests of the parsing rule (``pytest_gpufabric/parsers/reading.py``), for every parser's tests.

What the field does to an output must not change what a parser reads from it:

- ``same_facts_variants(text)``: tabs for spaces (at 8-column stops, so the columns stay where they were),
  trailing whitespace, CRLF line ends, blank and warning lines (at the places a test allows) give the same facts;
- ``fused_row`` / ``shifted_row``: a cell pushed into its neighbour (``1,200201``) or moved off its column gives
  a refused row, never a different value (``assert_never_misread``).

Typical use::

    @given(variant=same_facts_variants(TEXT, insert_at=(0, END)))
    def test_variants(variant): assert_same_facts(parse, TEXT, variant)

    def test_fused(): assert_fused_cell_refused(parse, TEXT, row_line=5, cell=1)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from pytest_gpufabric.parsers.reading import Parsed, facts_of
from pytest_gpufabric.parsers.registry import to_plain

END = -1  # an insertion place: after the last line
WARNING_LINES = (
    "Warning: Permanently added '10.0.0.2' (ED25519) to the list of known hosts.",
    "% Warning: counters may be stale, last updated 00:00:03 ago",
    "Last login: Tue Nov 18 09:14:02 2025 from 10.0.0.1",
)


def tabs_for_spaces(line: str, which: Sequence[bool]) -> str:
    """``line`` (tabs expanded first) with the space runs that ``which`` selects written as tabs where an 8-column
    tab stop falls inside them, so ``expandtabs(8)`` gives the line back unchanged."""
    text = line.expandtabs(8)
    out, position, run = [], 0, 0
    for match in re.finditer(r" +", text):
        out.append(text[position:match.start()])
        start, end = match.start(), match.end()
        convert = which[run % len(which)] if which else False
        run += 1
        cursor = start
        if convert:
            while (cursor // 8 + 1) * 8 <= end:
                out.append("\t")
                cursor = (cursor // 8 + 1) * 8
        out.append(" " * (end - cursor))
        position = end
    out.append(text[position:])
    return "".join(out)


@st.composite
def same_facts_variants(draw: st.DrawFn, text: str, insert_at: Sequence[int] = (0, END)) -> str:
    """A variant of ``text`` that must give the same facts (see the module's docstring). ``insert_at`` lists the
    line indexes (0-based, ``END`` for after the last) where a blank or warning line may be inserted."""
    lines = text.replace("\r\n", "\n").split("\n")
    trailing_newline = lines[-1] == ""
    if trailing_newline:
        lines.pop()
    which = draw(st.lists(st.booleans(), min_size=1, max_size=8))
    if draw(st.booleans()):
        lines = [tabs_for_spaces(line, which) for line in lines]
    if draw(st.booleans()):
        pads = draw(st.lists(st.sampled_from(["", " ", "  ", "\t", " \t "]), min_size=len(lines), max_size=len(lines)))
        lines = [line + pad for line, pad in zip(lines, pads)]
    places = sorted({len(lines) if place == END else place for place in insert_at}, reverse=True)
    for place in places:
        if draw(st.booleans()):
            extra = draw(st.sampled_from(["", *WARNING_LINES]))
            lines.insert(place, extra)
    end = "\r\n" if draw(st.booleans()) else "\n"
    return end.join(lines) + (end if trailing_newline or draw(st.booleans()) else "")


@st.composite
def line_variants(draw: st.DrawFn, text: str) -> str:
    """Trailing whitespace, CRLF, a blank or warning line first or last: no tab inside a value."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    if draw(st.booleans()):
        lines = [line + draw(st.sampled_from(["", " ", "\t", "  "])) for line in lines]
    for place in (len(lines), 0):
        if draw(st.booleans()):
            lines.insert(place, draw(st.sampled_from(["", *WARNING_LINES])))
    end = "\r\n" if draw(st.booleans()) else "\n"
    return end.join(lines) + end


def fused_row(line: str, cell: int) -> str:
    """``line`` with cell ``cell`` moved right until it touches the next one (``1,200     201`` -> ``1,200201``)."""
    text = line.expandtabs(8)
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", text)]
    (start, end), (next_start, _) = spans[cell], spans[cell + 1]
    moved = text[start:end]
    return text[:start] + " " * (next_start - end) + moved + text[next_start:]


def shifted_row(line: str, cell: int, by: int) -> str:
    """``line`` with cell ``cell`` moved ``by`` characters (negative: left), the line's other cells in place;
    the move stops one space short of a neighbour (touching it is ``fused_row``)."""
    text = line.expandtabs(8)
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", text)]
    start, end = spans[cell]
    low = spans[cell - 1][1] + 2 if cell > 0 else 0
    high = spans[cell + 1][0] - 2 if cell + 1 < len(spans) else len(text) + abs(by)
    new_start = max(low, min(start + by, high - (end - start)))
    blank = text[:start] + " " * (end - start) + text[end:]
    blank = blank.ljust(new_start + end - start)
    return (blank[:new_start] + text[start:end] + blank[new_start + end - start:]).rstrip()


NOT_FACTS = frozenset({"unread"})  # what some facts keep of the lines not understood (to say a fact may be there)
# What a reading says of its own completeness (a table read whole, the fields whose line was not understood): a
# damaged variant may say less, never a different value of the output.
COMPLETENESS = frozenset({"complete", "app_incomplete", "unread_fields", "missing"})


def flat(facts: Any, *, completeness: bool = True) -> dict[str, Any]:
    """Facts as path -> value; None and empty values are left out (not read is not a value), a list becomes the
    set of its items (so a refused element does not renumber the others). The texts of lines not understood that
    some facts keep (``unread``) are not facts; ``completeness=False`` leaves out what a reading says of itself."""
    out: dict[str, Any] = {}
    skipped = NOT_FACTS if completeness else NOT_FACTS | COMPLETENESS

    def walk(path: str, value: Any) -> None:
        if value is None or value == {} or value == [] or value == "":
            return
        if isinstance(value, dict):
            for key, item in value.items():
                if key not in skipped:
                    walk(f"{path}.{key}", item)
        elif isinstance(value, list):
            out[path] = frozenset(json.dumps(item, sort_keys=True) for item in value)
        else:
            out[path] = value

    walk("", to_plain(facts_of(facts)))
    return out


def assert_same_facts(parse: Callable[[str], Any], text: str, variant: str) -> None:
    """``variant`` gives exactly the facts of ``text``."""
    assert flat(parse(variant)) == flat(parse(text)), repr(variant)


def assert_never_misread(original: Any, variant: Any) -> None:
    """Every value read from a variant is the value read from the original (a variant may read less)."""
    before, after = flat(original, completeness=False), flat(variant, completeness=False)
    for path, value in after.items():
        assert path in before, f"{path}: {value!r} read from the variant only"
        if isinstance(value, frozenset):
            assert value <= before[path], f"{path}: {sorted(value - before[path])} read from the variant only"
        else:
            assert value == before[path], f"{path}: {value!r} read, {before[path]!r} in the original"


def _replace_line(text: str, number: int, line: str) -> str:
    lines = text.split("\n")
    lines[number - 1] = line
    return "\n".join(lines)


def refused_lines(parsed: Any) -> set[int]:
    return {u.line for u in parsed.unread} if isinstance(parsed, Parsed) else set()


def assert_fused_cell_refused(parse: Callable[[str], Any], text: str, row_line: int, cell: int) -> None:
    """Fusing cell ``cell`` of the row at ``row_line`` (1-based) with the next refuses that row and misreads
    nothing."""
    line = text.split("\n")[row_line - 1]
    variant = parse(_replace_line(text, row_line, fused_row(line, cell)))
    assert row_line in refused_lines(variant), f"fused row {row_line} was not refused"
    assert_never_misread(parse(text), variant)


def assert_fused_cell_read_or_refused(parse: Callable[[str], Any], text: str, row_line: int, cell: int) -> None:
    """For a format whose cells come from a closed vocabulary (``nvidia-smi topo -m``'s legend words): fusing cell
    ``cell`` of the row at ``row_line`` gives the same facts (the fused word splits into those words in one way
    only) or refuses the row; nothing is misread."""
    line = text.split("\n")[row_line - 1]
    variant = parse(_replace_line(text, row_line, fused_row(line, cell)))
    assert_never_misread(parse(text), variant)
    if flat(variant) != flat(parse(text)):
        assert row_line in refused_lines(variant), f"fused row {row_line} changed without being refused"


def assert_shift_never_misreads(parse: Callable[[str], Any], text: str, row_line: int, cell: int, by: int) -> None:
    """A cell moved off its place gives the same value (still under its column) or a refused row."""
    line = text.split("\n")[row_line - 1]
    moved = shifted_row(line, cell, by)
    variant = parse(_replace_line(text, row_line, moved))
    assert_never_misread(parse(text), variant)
    if flat(variant, completeness=False) != flat(parse(text), completeness=False):
        assert row_line in refused_lines(variant), f"row {row_line} changed without being refused: {moved!r}"


def row_cells(line: str) -> int:
    """How many cells a table row has (runs of text separated by two or more spaces)."""
    return len(re.findall(r"\S+(?: \S+)*", line.expandtabs(8)))
