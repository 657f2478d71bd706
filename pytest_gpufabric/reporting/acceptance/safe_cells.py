"""Spreadsheet cells that stay data: node outputs are untrusted text, and a cell is code in Excel and
LibreOffice when it starts with ``=`` (XLSX) or with ``=``, ``+``, ``-``, ``@``, tab or carriage return (CSV).

XLSX: every text cell is written as text (never a formula), and characters XML cannot carry are replaced.
CSV: text cells starting with one of those characters get a leading ``'`` (OWASP, "CSV Injection");
numbers stay numbers."""

from __future__ import annotations

from typing import Any

import pandas as pd
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
REPLACEMENT = "\ufffd"


def xlsx_value(sheet: WriteOnlyWorksheet, value: Any) -> Any:
    """A value for ``sheet.append``: text is forced to a text cell where openpyxl would make it a formula."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and pd.isna(value)):
        return None
    if isinstance(value, str):
        text = ILLEGAL_CHARACTERS_RE.sub(REPLACEMENT, value)
        if not text.startswith("="):
            return text
        cell = WriteOnlyCell(sheet, value=text)
        cell.data_type = "s"
        return cell
    if isinstance(value, (bool, int, float)):
        return value
    return ILLEGAL_CHARACTERS_RE.sub(REPLACEMENT, str(value))


def neutralized(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text cells (and index) cannot start a formula in a spreadsheet reading the CSV."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column].dtype):
            out[column] = _neutral_series(out[column])
    if out.index.dtype == object:
        out.index = pd.Index(_neutral_series(out.index.to_series()), name=out.index.name)
    return out


def _neutral_series(values: pd.Series) -> pd.Series:
    is_text = values.map(lambda v: isinstance(v, str) and v.startswith(CSV_FORMULA_STARTS))
    if not is_text.any():
        return values
    return values.where(~is_text.astype(bool), "'" + values[is_text.astype(bool)].astype(str))
