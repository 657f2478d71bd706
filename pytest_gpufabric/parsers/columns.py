"""Column tables as SONiC's ``show`` commands print them (python ``tabulate``): a header line, a line of
dashes under each column, then rows; several tables are separated by blank lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.textutil import clean_lines, fail

_DASHES = re.compile(r"-+")


@dataclass(frozen=True)
class Table:
    """One table: its column names and its rows (column name -> cell text, stripped)."""

    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """The cell of each column: the text between the previous column's dashes and the next column's
    (numbers are right-aligned, text left-aligned, so a cell never crosses into its neighbours' dashes)."""
    cells = []
    for index in range(len(spans)):
        left = spans[index - 1][1] if index else 0
        right = spans[index + 1][0] if index + 1 < len(spans) else len(line)
        cells.append(line[left:right].strip())
    return cells


def read_tables(tool: str, text: str) -> list[Table]:
    """Every dash-underlined table of ``text``; ParseError when there is none."""
    lines = clean_lines(tool, text)
    tables: list[Table] = []
    index = 1
    while index < len(lines):
        under = lines[index]
        if under.strip() and set(under.strip()) <= {"-", " "} and "-" in under:
            spans = [(m.start(), m.end()) for m in _DASHES.finditer(under)]
            columns = tuple(_cells(lines[index - 1], spans))
            rows = []
            index += 1
            while index < len(lines) and lines[index].strip():
                rows.append(dict(zip(columns, _cells(lines[index], spans))))
                index += 1
            tables.append(Table(columns, tuple(rows)))
        index += 1
    if not tables:
        fail(tool, "no table (a header line underlined with dashes) found")
    return tables


def count(tool: str, cell: str, what: str) -> int | None:
    """A counter cell: ``1,200`` -> 1200, ``N/A`` -> None; anything else is a ParseError."""
    value = cell.replace(",", "").strip()
    if value in ("N/A", ""):
        return None
    if not value.isdigit():
        fail(tool, f"{what}: expected a counter, found {cell!r}")
    return int(value)
