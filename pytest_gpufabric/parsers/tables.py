"""Column tables as tools print them, split by the header's positions (the parsing rule's table half).

A table's columns come from its header: either the dashes under each column (python ``tabulate``, SONiC's
``show`` commands, ``----  ----``) or the header words themselves (``Port  RxPfc  TxPfc``; names of several
words such as ``CPU Affinity`` are given by the parser). Tabs are expanded to 8-column stops first, in the header
and in every row, so a tab-aligned copy splits like a space-aligned one.

A row's cells are its runs of text (words joined by single spaces), each placed under the one column it
overlaps. A row that does not fit is refused, never shifted (``Unfit``):

- a word that overlaps two columns is a fused cell (``NODENODE``, ``1234/56789`` across two counters);
- a run under no column is a shifted cell.

A run that overlaps two columns but splits at a single space into words each under one column is two touching
cells (``112-127,240-255 7`` under ``CPU Affinity`` and ``NUMA Affinity``); a word that touches another
column's name (no space between) is fused. The last column is open on the right (free text such as a
description runs past its header).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_gpufabric.parsers.reading import Line, Reading, Unfit

TAB_STOP = 8
_WORD = re.compile(r"\S+")
_DASH_RUN = re.compile(r"-+")


@dataclass(frozen=True)
class Column:
    """One column: its name and the character positions [start, end) its header occupies (tabs expanded)."""

    name: str
    start: int
    end: int


@dataclass(frozen=True)
class Header:
    """A table's columns, from its header line (and the dash line under it, when there is one).

    ``contained``: a cell lies inside its column's extent (dash-underlined tables: the dashes span the widest
    cell); otherwise a cell only has to overlap its column's name (values wider than their header)."""

    columns: tuple[Column, ...]
    open_last: bool = True
    contained: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)

    def _end(self, index: int) -> int:
        return 10**9 if index == len(self.columns) - 1 and self.open_last else self.columns[index].end

    def _overlapped(self, start: int, end: int, margin: bool = False) -> list[int]:
        """Columns whose extent (with ``margin``: up to the middle of the gaps beside it) [start, end) overlaps."""
        found = []
        for i, column in enumerate(self.columns):
            low, high = column.start, self._end(i)
            if margin:
                low = (self.columns[i - 1].end + column.start) // 2 if i else 0
                high = (column.end + self.columns[i + 1].start) // 2 if i + 1 < len(self.columns) else self._end(i)
            if start < high and end > low:
                found.append(i)
        return found

    def _place(self, start: int, end: int, text: str) -> int:
        """The column of the cell text at [start, end); ``Unfit`` when it is fused with a neighbour or shifted."""
        under = self._overlapped(start, end)
        if self.contained:  # inside its dashes
            if len(under) == 1 and start >= self.columns[under[0]].start and end <= self._end(under[0]):
                return under[0]
            near = self._overlapped(start, end, margin=True)
        else:  # over its name, and not touching another column's name
            near = self._overlapped(start - 1, end + 1)
            if len(under) == 1 and near == under:
                return under[0]
        if len(near) >= 2:
            names = " and ".join(self.columns[i].name for i in near)
            raise Unfit(f"fused cell {text!r} at column {start + 1} spans {names}")
        if under or near:
            raise Unfit(f"{text!r} at column {start + 1} runs out of column {self.columns[(under or near)[0]].name}")
        raise Unfit(f"{text!r} at column {start + 1} is under no column of the header")

    def cells(self, line: Line) -> dict[str, str]:
        """Every column's cell in ``line`` ("" where the row leaves it empty); ``Unfit`` when the row does not
        fit the header (a fused or shifted cell)."""
        text = line.text.expandtabs(TAB_STOP)
        words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
        found: dict[int, list[tuple[int, int]]] = {}
        for run in _runs(words):
            start, end = run[0][0], run[-1][1]
            try:
                found.setdefault(self._place(start, end, text[start:end]), []).append((start, end))
            except Unfit:
                if len(run) == 1:
                    raise
                for word_start, word_end, word in run:  # touching cells: each word under a column of its own
                    found.setdefault(self._place(word_start, word_end, word), []).append((word_start, word_end))
        return {column.name: (text[min(s for s, _ in found[i]):max(e for _, e in found[i])] if i in found else "")
                for i, column in enumerate(self.columns)}

    def fits(self, line: Line) -> bool:
        try:
            self.cells(line)
        except Unfit:
            return False
        return True


def _runs(words: list[tuple[int, int, str]]) -> list[list[tuple[int, int, str]]]:
    """Words joined into runs: a single space joins, two or more separate."""
    runs: list[list[tuple[int, int, str]]] = []
    for word in words:
        if runs and word[0] - runs[-1][-1][1] == 1:
            runs[-1].append(word)
        else:
            runs.append([word])
    return runs


def is_dash_line(line: Line) -> bool:
    """A line of dashes under a header (``----  -----``), possibly with ``+`` or ``=``-free spaces between."""
    text = line.stripped
    return bool(text) and "-" in text and set(text) <= {"-", " ", "\t"} and len(text.replace(" ", "")) >= 2


def header_from_dashes(header: Line, dashes: Line, *, open_last: bool = True) -> Header:
    """Columns whose extents are the dash runs under them, named by the header text above each run."""
    under = dashes.text.expandtabs(TAB_STOP)
    above = header.text.expandtabs(TAB_STOP)
    columns = [Column(above[m.start():m.end()].strip(), m.start(), m.end()) for m in _DASH_RUN.finditer(under)]
    spill = above[columns[-1].end:].strip() if columns else ""
    if not columns or any(not c.name for c in columns) or spill:
        raise Unfit("the header line's names do not stand above its dashes")
    return Header(tuple(columns), open_last, contained=True)


def header_from_names(line: Line, names: Sequence[str] = (), *, open_last: bool = True,
                      leading: str | None = None) -> Header:
    """Columns named by the words of a header line; ``names`` of several words (``CPU Affinity``) are located
    first, at word boundaries, each once. Every other word is a column of its own. ``leading`` names a column of
    row labels before the first header word (``nvidia-smi topo -m``: the header starts indented)."""
    text = line.text.expandtabs(TAB_STOP)
    taken: list[tuple[int, int, str]] = []
    indent = len(text) - len(text.lstrip())
    if leading is not None and indent:
        taken.append((0, indent - 1, leading))
    for name in sorted(names, key=len, reverse=True):
        for match in re.finditer(rf"(?<!\S){re.escape(name)}(?!\S)", text):
            if not any(match.start() < end and match.end() > start for start, end, _ in taken):
                taken.append((match.start(), match.end(), name))
    for match in _WORD.finditer(text):
        if not any(match.start() < end and match.end() > start for start, end, _ in taken):
            taken.append((match.start(), match.end(), match.group()))
    return Header(tuple(Column(name, start, end) for start, end, name in sorted(taken)), open_last)


def is_flattened(line: Line) -> bool:
    """A header whose words are one space apart: a table a document or a paste flattened, whose positions say
    nothing (``Port RxPfc TxPfc``)."""
    return "  " not in line.text.expandtabs(TAB_STOP).strip()


def flattened_cells(header: Header, line: Line) -> dict[str, str]:
    """The cells of a row of a flattened table (see ``is_flattened``): exactly one word per column, else
    ``Unfit`` (a missing or an extra word cannot be placed)."""
    words = line.stripped.split()
    if len(words) != len(header.columns):
        raise Unfit(f"{len(words)} words for the {len(header.columns)} columns of a flattened table")
    return dict(zip(header.names, words))


@dataclass(frozen=True)
class Table:
    """A header and the lines under it (up to a blank line or the next table), not read yet."""

    header: Header
    heading: tuple[Line, ...]
    rows: tuple[Line, ...]


def _next_content(lines: list[Line], index: int) -> int:
    """The index of the first non-blank line at or after ``index`` (``len(lines)`` when there is none)."""
    while index < len(lines) and not lines[index].stripped:
        index += 1
    return index


def dash_tables(reading: Reading) -> list[Table]:
    """Every dash-underlined table among the lines not classified yet; header and dash lines become known, the
    rows (up to a line already classified, such as a closing prompt, or the next table's header) are left for the
    parser to read (``Header.cells`` under ``Reading.row``). Blank lines between the header, its dashes and the
    rows (a paste that doubled every line end) do not end the table: a table ends at a line that is not one of
    its rows."""
    lines = list(reading.lines)
    tables = []
    index = 0
    while index < len(lines):
        header = lines[index]
        below = _next_content(lines, index + 1)
        if not (header.stripped and below < len(lines) and is_dash_line(lines[below])
                and reading.outcome(header) is None and not is_dash_line(header)):
            index += 1
            continue
        dashes = lines[below]
        try:
            columns = header_from_dashes(header, dashes)
        except Unfit as exc:
            reading.unread(header, str(exc))
            index += 1
            continue
        reading.known(header)
        reading.known(dashes)
        rows = []
        index = _next_content(lines, below + 1)
        while index < len(lines) and reading.outcome(lines[index]) is None:
            following = _next_content(lines, index + 1)
            if following < len(lines) and is_dash_line(lines[following]) and not is_dash_line(lines[index]):
                break  # the next table's header
            if is_dash_line(lines[index]):
                reading.known(lines[index])  # a dash line closing the table
            else:
                rows.append(lines[index])
            index = _next_content(lines, index + 1)
        tables.append(Table(columns, (header, dashes), tuple(rows)))
    return tables


def named_tables(reading: Reading, required: Sequence[str], names: Sequence[str] = ()) -> list[Table]:
    """Tables whose header has every one of ``required`` (``names``: the column names of several words) but no
    dash line under it (a capture whose dash line was cut off): columns from the header words, each row's cells
    placed by overlap with the column names (``Header.cells``: a fused or shifted cell is refused). Call after
    ``dash_tables``, on the lines it left unclassified; the rows run up to a line already classified."""
    tables = []
    pending = [line for line in reading.lines if reading.outcome(line) is None and line.stripped]
    for position, line in enumerate(pending):
        if reading.outcome(line) is not None:
            continue
        header = header_from_names(line, names)
        if not set(required) <= set(header.names):
            continue
        reading.known(line)
        rows = []
        for row in pending[position + 1:]:
            if reading.outcome(row) is not None or set(required) <= set(header_from_names(row, names).names):
                break
            rows.append(row)
        tables.append(Table(header, (line,), tuple(rows)))
    return tables


def first_word(line: Line) -> str:
    """The first word of a row: the scope of its unread cells (a port, a queue) when the row is refused."""
    words = line.stripped.split(None, 1)
    return words[0] if words else ""
