"""OSU micro-benchmarks (osu_bw, osu_bibw, osu_latency, osu_mbw_mr, osu_allreduce, osu_alltoall, ...).

Every benchmark prints ``#`` lines (a ``# OSU MPI ... Test vX.Y`` title, the datatype, buffer placement,
pairs and window size) and a ``# Size  <column> ...`` header naming each column and its unit, then one row
per message size. The header decides the columns, so point-to-point and collective tests, ``-f`` (full
statistics) runs and the NCCL/RCCL (``xccl``) builds share this parser. OSU 7.4's xccl point-to-point
programs print no title line at all; their table is read all the same, under the name ``OSU benchmark``.
A run that crashed after its header (a segmentation fault, a CUDA error) has no rows: the error names the
first line it printed instead.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

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


def _row(line: str, width: int) -> OsuRow:
    fields = line.split()
    if len(fields) != 1 + width:
        fail(TOOL, f"row {line.strip()!r}: expected size and {width} value(s), found {len(fields)} fields")
    if not fields[0].isdigit():
        fail(TOOL, f"row {line.strip()!r}: message size {fields[0]!r} is not a byte count")
    values = []
    for raw in fields[1:]:
        try:
            value = float(raw)
        except ValueError:
            fail(TOOL, f"row {line.strip()!r}: {raw!r} is not a number")
        if not math.isfinite(value):
            fail(TOOL, f"row {line.strip()!r}: {raw!r} is not a finite number")
        values.append(value)
    return OsuRow(int(fields[0]), tuple(values))


@parser("osu", "OSU micro-benchmarks: title, version, size -> value table with the units named in its header")
def parse_osu(text: str) -> OsuResult:
    """Parse the output of one OSU micro-benchmark (rank 0's stdout)."""
    lines = [line.strip() for line in clean_lines(TOOL, text)]
    title: re.Match[str] | None = None
    notes: list[str] = []
    columns: list[OsuColumn] = []
    rows: list[OsuRow] = []
    after_header: list[str] = []
    for line in lines:
        if columns:
            if line[:1].isdigit():
                rows.append(_row(line, len(columns)))
            elif HEADER.match(line):
                fail(TOOL, "two result tables in one output; give one benchmark run at a time")
            elif line and not rows:
                after_header.append(line)
            continue
        header = HEADER.match(line)
        if header:
            columns = [_column(name.strip()) for name in re.split(r"\s{2,}", header.group(1).strip())]
            continue
        if title is None and (title := TITLE.match(line)):
            continue
        note = NOTE.match(line)
        if note:
            notes.append(note.group(1))
    name = title.group(1) if title else UNTITLED
    if not columns:
        said = next((line for line in lines if line and not line.startswith(("-", "#"))), "")
        fail(TOOL, f"{name}: no '# Size ...' column header (run failed or output truncated)"
             + (f"; the output says {said!r}" if said else ""))
    if not rows:
        said = next((line for line in after_header if not line.startswith("-")), "")
        fail(TOOL, f"{name}: no result rows (run failed or output truncated)"
             + (f"; the output says {said!r}" if said else ""))
    return OsuResult(title.group(1) if title else None, title.group(2) if title else None, tuple(notes),
                     tuple(columns), tuple(rows))


def value_at(result: OsuResult, size_bytes: int, column: str | None = None) -> float:
    """The value of ``column`` (default: the first) at ``size_bytes``; MeasurementMissing when absent."""
    index = result.column_index(column)
    for row in result.rows:
        if row.size_bytes == size_bytes:
            return row.values[index]
    raise MeasurementMissing(f"{result.label}: no row for {size_bytes} bytes "
                             f"(sizes {result.rows[0].size_bytes}..{result.rows[-1].size_bytes})")


def max_value(result: OsuResult, column: str | None = None) -> tuple[int, float]:
    """(size, value) where ``column`` (default: the first) is highest, e.g. peak bandwidth."""
    index = result.column_index(column)
    best = max(result.rows, key=lambda row: row.values[index])
    return best.size_bytes, best.values[index]
