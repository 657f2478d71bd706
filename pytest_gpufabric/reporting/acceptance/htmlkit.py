"""Small HTML building blocks (everything escaped here, once): tables from frames, sections, figures."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from html import escape
from typing import Any

import pandas as pd

CellClass = Callable[[Any, Any, Any], str]  # (row index, column, value) -> CSS class


def text(value: Any) -> str:
    """A cell's text: empty for missing values, numbers without a trailing .0."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return escape(str(value))


def attrs(values: Mapping[str, Any]) -> str:
    return "".join(f' {name}="{escape(str(value), quote=True)}"' for name, value in values.items() if value is not None)


def frame_table(frame: pd.DataFrame, *, table_id: str | None = None, css: str = "grid",
                cell_class: CellClass | None = None, index: bool = True) -> str:
    """A frame as an HTML table; ``cell_class`` picks a class per cell (outcome colours, odd values)."""
    head = ([escape(str(frame.index.name or ""))] if index else []) + [escape(str(c)) for c in frame.columns]
    rows = []
    for key, row in frame.iterrows():
        cells = [f"<th>{text(key)}</th>"] if index else []
        for column, value in row.items():
            cls = cell_class(key, column, value) if cell_class else ""
            cells.append(f"<td{attrs({'class': cls or None})}>{text(value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    header = "<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
    return f"<table{attrs({'id': table_id, 'class': css})}><thead>{header}</thead><tbody>{''.join(rows)}</tbody></table>"


def section(section_id: str, title: str, body: Iterable[str], intro: str = "") -> str:
    lead = f"<p class='intro'>{escape(intro)}</p>" if intro else ""
    return f"<section id='{escape(section_id)}'><h2>{escape(title)}</h2>{lead}{''.join(body)}</section>"


def image(data_uri: str, alt: str) -> str:
    return f"<img src='{data_uri}' alt='{escape(alt, quote=True)}'>"
