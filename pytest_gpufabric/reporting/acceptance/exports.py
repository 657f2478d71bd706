"""The report's tables as ``summary.xlsx`` (openpyxl through pandas) and CSV files, and the page as PDF
(headless Chromium prints the HTML; without Chromium the PDF is left out with the reason)."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pytest_gpufabric.reporting.render import CHROMIUM_FLAGS, ReportToolError, find_chromium, run_bounded

XLSX_SHEET_NAME_LIMIT = 31
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
    statistics: pd.DataFrame | None = None  # fleet statistics per check, metric and rail
    outliers: pd.DataFrame | None = None
    comparison: pd.DataFrame | None = None  # with a baseline run (--compare-with)

    def sheets(self) -> dict[str, pd.DataFrame]:
        fleet = {name: frame for name, frame in (("fleet statistics", self.statistics), ("outliers", self.outliers),
                                                  ("comparison", self.comparison)) if frame is not None}
        return {"summary": self.summary, "results": self.results, "node x check": self.node_check,
                "versions": self.versions, **fleet}


def _file_name(sheet: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", sheet.lower()).strip("_") + ".csv"


def _write_matrices(writer: pd.ExcelWriter, matrices: list[tuple[str, pd.DataFrame]]) -> None:
    """All pair matrices on one sheet, one block under the other, each under its title."""
    row = 0
    for title, matrix in matrices:
        pd.DataFrame([[title]]).to_excel(writer, sheet_name=PAIR_SHEET, startrow=row, header=False, index=False)
        matrix.to_excel(writer, sheet_name=PAIR_SHEET, startrow=row + 1)
        row += len(matrix) + 3


def write_tables(tables: Tables, out: Path) -> tuple[Path, list[Path]]:
    """``summary.xlsx`` (sheets summary, results, node x check, pair matrices, versions) and one CSV per table;
    the pairs' CSV is the long table behind the matrices (one row per check, rail and NIC pair)."""
    workbook = out / "summary.xlsx"
    csvs = []
    with pd.ExcelWriter(workbook, engine="openpyxl") as writer:
        for sheet, frame in tables.sheets().items():
            index = frame.index.name is not None
            frame.to_excel(writer, sheet_name=sheet[:XLSX_SHEET_NAME_LIMIT], index=index)
            path = out / _file_name(sheet)
            frame.to_csv(path, index=index)
            csvs.append(path)
        _write_matrices(writer, tables.pair_matrices)
    pairs = out / "pairs.csv"
    tables.pairs.to_csv(pairs, index=False)
    return workbook, [*csvs, pairs]


def print_pdf(html: Path, pdf: Path, timeout_s: float = PDF_TIMEOUT_S) -> str:
    """Print ``html`` to ``pdf`` with headless Chromium; returns a one-line note (why not, when it could not)."""
    try:
        chromium = find_chromium()
        with tempfile.TemporaryDirectory(prefix="gpufabric-pdf-") as profile:
            run = run_bounded([str(chromium), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
                               f"--print-to-pdf={pdf.resolve()}", html.resolve().as_uri()], timeout_s)
    except ReportToolError as exc:
        return f"report.pdf not written: {exc}"
    if run.exit_code != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        return f"report.pdf not written: Chromium exit {run.exit_code}: {run.stderr.strip().splitlines()[-1:] or 'no output'}"
    return f"report.pdf: {pdf}"
