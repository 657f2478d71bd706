"""OSU micro-benchmarks (osu_bw, osu_bibw, osu_latency, osu_mbw_mr, osu_allreduce, osu_alltoall, ...).

Every benchmark prints ``#`` lines (a ``# OSU MPI ... Test vX.Y`` title, the datatype, buffer placement,
pairs and window size) and a ``# Size  <column> ...`` header naming each column and its unit, then one row
per message size. The header decides the columns, so point-to-point and collective tests, ``-f`` (full
statistics) runs and the NCCL/RCCL (``xccl``) builds share this parser. OSU 7.4's xccl point-to-point
programs print no title line at all; their table is read all the same, under the name ``OSU benchmark``.
A run that crashed after its header (a segmentation fault, a CUDA error) has no rows: a value asked of it is
missing (MeasurementMissing naming the first line it printed instead), never a guess.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import TAB_STOP, first_word
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "osu"

TITLE = re.compile(r"^#\s*(OSU\b.*?Test)(?:\s+v(\S+))?\s*$")
HEADER = re.compile(r"^#\s*Size\s{2,}(.+)$")
UNIT_IN_NAME = re.compile(r"\(([^()]+)\)\s*$")
BARE_UNITS = {"MB/s", "Messages/s", "us", "GB/s"}
NOTE = re.compile(r"^#\s*(.+?)\s*$")
UNTITLED = "OSU benchmark"


@dataclass(frozen=True)
class OsuColumn:
    """One value column: its header text and the unit it states (None for counts such as Iterations)."""

    name: str
    unit: str | None


@dataclass(frozen=True)
class OsuRow:
    """One message size (bytes) and its values, in the order of ``OsuResult.columns``."""

    size_bytes: int
    values: tuple[float, ...]


@dataclass(frozen=True)
class OsuResult:
    """One OSU benchmark run: title, version, notes (datatype, buffers, pairs), columns and rows."""

    title: str | None
    version: str | None
    notes: tuple[str, ...]
    columns: tuple[OsuColumn, ...]
    rows: tuple[OsuRow, ...]
    unread: tuple[str, ...] = ()  # the lines not understood (a crash report), as printed

    @property
    def label(self) -> str:
        """The title, or ``OSU benchmark`` for the programs that print none."""
        return self.title or UNTITLED

    def column_index(self, name: str | None = None) -> int:
        """Index of the column whose name starts with ``name`` (default: the first column)."""
        if name is None:
            return 0
        for index, column in enumerate(self.columns):
            if column.name.lower().startswith(name.lower()):
                return index
        raise MeasurementMissing(f"{self.label}: no column {name!r} (columns: "
                                 f"{', '.join(column.name for column in self.columns)})")


def _column(name: str) -> OsuColumn:
    unit = UNIT_IN_NAME.search(name)
    if unit:
        return OsuColumn(name, unit.group(1))
    return OsuColumn(name, name if name in BARE_UNITS else None)


def _row(line: Line, width: int) -> OsuRow:
    """A size and one number per column, each a single word (OSU prints every cell): a missing, extra or fused
    cell changes the count or leaves a word that is not a number, and refuses the row."""
    fields = line.stripped.split()
    if len(fields) != 1 + width:
        raise Unfit(f"expected size and {width} value(s), found {len(fields)} fields")
    size = integer(fields[0], "message size")
    values = [decimal(raw, "value") for raw in fields[1:]]
    if not all(math.isfinite(value) for value in values):
        raise Unfit("a value that is not a finite number")
    return OsuRow(size, tuple(values))


@parser("osu", "OSU micro-benchmarks: title, version, size -> value table with the units named in its header")
def parse_osu(text: str) -> Parsed[OsuResult]:
    """Parse the output of one OSU micro-benchmark (rank 0's stdout). Read by the parsing rule: a row of another
    form costs only its own size (kept unread, scoped to the size); the lines of a crash (an MPI signal report, a
    CUDA error) are unread and the result has no rows, never a value; a second table (two runs in one output) is
    unread."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    title: re.Match[str] | None = None
    notes: list[str] = []
    columns: list[OsuColumn] = []
    rows: list[OsuRow] = []
    second = False
    for line in reading.content():
        stripped = line.text.expandtabs(TAB_STOP).strip()  # a tab-aligned copy reads as the spaced one
        header = HEADER.match(stripped)
        if second:
            reading.unread(line, "a second result table in one output: one benchmark run at a time")
        elif header and columns:
            second = True
            reading.unread(line, "a second result table in one output: one benchmark run at a time")
        elif header:
            columns = [_column(name.strip()) for name in re.split(r"\s{2,}", header.group(1).strip())]
            reading.known(line)
        elif columns and stripped[:1].isdigit():
            with reading.row(line, scope=first_word(line)):
                row = _row(line, len(columns))
                if any(existing.size_bytes == row.size_bytes for existing in rows):
                    raise Unfit(f"size {row.size_bytes} printed twice")
                rows.append(row)
        elif title is None and not columns and (match := TITLE.match(stripped)):
            title = match
            reading.used(line)
        elif not columns and (note := NOTE.match(stripped)):
            notes.append(note.group(1))
            reading.used(line)
        else:
            reading.unread(line, "not a line of the OSU benchmark's table")
    unread = tuple(u.text.strip() for u in reading.unread_lines())
    result = OsuResult(title.group(1) if title else None, title.group(2) if title else None, tuple(notes),
                       tuple(columns), tuple(rows), unread)
    return reading.done(result, nothing="no OSU title, note or result row (not an OSU benchmark's output)")


def _rows(result: OsuResult) -> tuple[OsuRow, ...]:
    """The rows of a run that has some; MeasurementMissing naming what the output said instead."""
    if not result.columns:
        raise MeasurementMissing(f"{result.label}: no '# Size ...' column header (run failed or output cut)"
                                 + (f"; the output says {result.unread[0]!r}" if result.unread else ""))
    if not result.rows:
        raise MeasurementMissing(f"{result.label}: no result rows (run failed or output cut)"
                                 + (f"; the output says {result.unread[0]!r}" if result.unread else ""))
    return result.rows


def value_at(result: OsuResult, size_bytes: int, column: str | None = None) -> float:
    """The value of ``column`` (default: the first) at ``size_bytes``; MeasurementMissing when absent."""
    rows = _rows(result)
    index = result.column_index(column)
    for row in rows:
        if row.size_bytes == size_bytes:
            return row.values[index]
    raise MeasurementMissing(f"{result.label}: no row for {size_bytes} bytes (sizes {rows[0].size_bytes}..{rows[-1].size_bytes}"
                             + (f"; {len(result.unread)} line(s) not understood" if result.unread else "") + ")")


def max_value(result: OsuResult, column: str | None = None) -> tuple[int, float]:
    """(size, value) where ``column`` (default: the first) is highest, e.g. peak bandwidth."""
    rows = _rows(result)
    index = result.column_index(column)
    best = max(rows, key=lambda row: row.values[index])
    return best.size_bytes, best.values[index]
