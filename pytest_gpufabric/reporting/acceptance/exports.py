"""The report's tables as ``summary.xlsx`` (openpyxl, write-only) and CSV files, and the page as PDF
(headless Chromium prints the HTML; without Chromium the PDF is left out with the reason).

No cell is ever a formula (``safe_cells``); every table sheet has an autofilter and a frozen header."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import openpyxl
import pandas as pd
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from pytest_gpufabric.reporting.acceptance.safe_cells import neutralized, xlsx_value
from pytest_gpufabric.reporting.render import CHROMIUM_FLAGS, ReportToolError, find_chromium, run_bounded

XLSX_SHEET_NAME_LIMIT = 31
XLSX_ROW_LIMIT = 1_048_576  # Excel's rows per sheet, header included
PAIR_SHEET = "pair matrices"
PDF_TIMEOUT_S = 180.0
# results.csv mixes numbers, versions and words in these columns: read them back as text
# (``pd.read_csv(path, dtype=RESULTS_CSV_TYPES)``), or pandas guesses a type per chunk and warns.
RESULTS_CSV_TYPES = {column: "string" for column in ("measured", "expected", "unit", "source", "hint", "message")}


@dataclass(frozen=True)
class Tables:
    """Every table that goes into the workbook and the CSV files."""

    summary: pd.DataFrame
    results: pd.DataFrame
    node_check: pd.DataFrame
    pairs: pd.DataFrame
    pair_matrices: list[tuple[str, pd.DataFrame]]  # (title, node x node) per check, metric and rail
    versions: pd.DataFrame
    measurements: pd.DataFrame = field(default_factory=pd.DataFrame)  # one row per judged value

    def sheets(self) -> dict[str, pd.DataFrame]:
        return {"summary": self.summary, "results": self.results, "measurements": self.measurements,
                "node x check": self.node_check, "versions": self.versions}


def _file_name(sheet: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", sheet.lower()).strip("_") + ".csv"


def _append(sheet: WriteOnlyWorksheet, values: list[object]) -> None:
    sheet.append([xlsx_value(sheet, value) for value in values])


def _write_frame(sheet: WriteOnlyWorksheet, frame: pd.DataFrame, index: bool) -> int:
    """Header and rows (as many as a sheet holds), with an autofilter over them and the header frozen;
    returns the rows left out."""
    header = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    kept = frame.iloc[:XLSX_ROW_LIMIT - 1]
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(max(1, len(header)))}{len(kept) + 1}"
    _append(sheet, header)
    for row in kept.itertuples(index=index, name=None):
        _append(sheet, list(row))
    return len(frame) - len(kept)


def _write_matrices(sheet: WriteOnlyWorksheet, matrices: list[tuple[str, pd.DataFrame]]) -> None:
    """All pair matrices on one sheet, one block under the other, each under its title."""
    for title, matrix in matrices:
        _append(sheet, [title])
        _append(sheet, [matrix.index.name or "", *map(str, matrix.columns)])
        for row in matrix.itertuples(name=None):
            _append(sheet, list(row))
        sheet.append([])


def write_tables(tables: Tables, out: Path) -> tuple[Path, list[Path]]:
    """``summary.xlsx`` (sheets summary, results, measurements, node x check, versions, pair matrices) and one
    CSV per table; the pairs' CSV is the long table behind the matrices (one row per check, rail and NIC pair).
    A sheet holds at most Excel's 1,048,576 rows: the CSV holds every row, and the summary sheet says what a
    sheet left out."""
    workbook_path = out / "summary.xlsx"
    workbook = openpyxl.Workbook(write_only=True)
    csvs, left_out = [], {}
    for name, frame in tables.sheets().items():
        index = frame.index.name is not None
        dropped = _write_frame(workbook.create_sheet(name[:XLSX_SHEET_NAME_LIMIT]), frame, index)
        if dropped:
            left_out[name] = dropped
        path = out / _file_name(name)
        neutralized(frame).to_csv(path, index=index)
        csvs.append(path)
    _write_matrices(workbook.create_sheet(PAIR_SHEET), tables.pair_matrices)
    if left_out:
        notes = workbook.create_sheet("notes")
        for name, dropped in left_out.items():
            _append(notes, [f"sheet {name}: {dropped:,} rows past Excel's limit are only in {_file_name(name)}"])
    workbook.save(workbook_path)
    pairs = out / "pairs.csv"
    neutralized(tables.pairs).to_csv(pairs, index=False)
    return workbook_path, [*csvs, pairs]


def print_pdf(html: Path, pdf: Path, timeout_s: float = PDF_TIMEOUT_S) -> str:
    """Print ``html`` to ``pdf`` with headless Chromium; returns a one-line note (why not, when it could not)."""
    try:
        chromium = find_chromium()
        with tempfile.TemporaryDirectory(prefix="gpufabric-pdf-") as profile:
            run = run_bounded([str(chromium), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
                               f"--print-to-pdf={pdf.resolve()}", html.resolve().as_uri()], timeout_s)
    except ReportToolError as exc:
        return f"{pdf.name} not written: {exc}"
    if run.exit_code != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        return f"{pdf.name} not written: Chromium exit {run.exit_code}: {run.stderr.strip().splitlines()[-1:] or 'no output'}"
    return f"{pdf.name}: {pdf}"
