"""Render column tables the way SONiC's show commands print them (header, dashes, rows; two spaces apart)."""

from __future__ import annotations


def render(columns: list[str], rows: list[list[str]]) -> str:
    """Text cells right-aligned under dashes as wide as the widest cell of each column."""
    widths = [max(len(str(cell)) for cell in [column, *(row[i] for row in rows)]) for i, column in enumerate(columns)]
    lines = ["  ".join(str(c).rjust(w) for c, w in zip(columns, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(c).rjust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines) + "\n"
