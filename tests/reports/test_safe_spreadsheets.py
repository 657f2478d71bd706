"""Spreadsheets that are safe and pivotable: text a node printed that looks like a formula ends as text in
every XLSX cell and neutralized in every CSV (OWASP), no sheet holds a formula cell, and the measurements sheet
has an autofilter and a frozen header. A real replay of a copy of the demo recording whose node01 printed
``=HYPERLINK("http://x","y")`` as its bnxt_en version and ``@SUM(1+1)`` as its bnxt_re version."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import openpyxl
import pytest
from demo_runs import DEMO, replay

from pytest_gpufabric.recording.integrity import PREFIX as INTEGRITY_PREFIX, seal
from pytest_gpufabric.recording.nodefile import parse_node_file, render_node_file

PLANTED = ('=HYPERLINK("http://x","y")', "@SUM(1+1)")
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def planted_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("planted")
    recording = work / "recording"
    shutil.copytree(DEMO, recording, ignore=shutil.ignore_patterns(".locks"))
    node01 = recording / "nodes" / "node01.yaml"
    text = node01.read_text(encoding="utf-8")
    text = text.replace("      version: 1.10.3-234.0.154.0\n", f"      version: {PLANTED[0]}\n", 1)
    text = text.replace("      version: 234.0.154.0\n", f"      version: {PLANTED[1]}\n", 1)
    assert PLANTED[0] in text and PLANTED[1] in text
    body = text[:text.rindex(INTEGRITY_PREFIX)]  # sealed again, as a store writes it: the copy is a recording of its own
    node01.write_text(seal(render_node_file("node01", parse_node_file(body, "node01"))), encoding="utf-8")
    run = replay(work / "results", "-k", "test_bnxt_en_version or test_bnxt_re_version",
                 f"--gpufabric-report={work / 'report'}", "--gpufabric-paper=letter", recording=recording,
                 paths=("suites/acceptance/test_drivers.py",))
    assert (work / "report" / "summary.xlsx").is_file(), run.output[-3000:]
    return work / "report"


def test_planted_text_is_text_in_every_xlsx_cell(planted_report: Path) -> None:
    workbook = openpyxl.load_workbook(planted_report / "summary.xlsx")
    found = []
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"{sheet.title}!{cell.coordinate} is a formula: {cell.value!r}"
                if isinstance(cell.value, str) and any(p in cell.value for p in PLANTED):
                    assert cell.data_type == "s"
                    found.append(sheet.title)
    assert {"results", "measurements"} <= set(found)


def test_every_csv_cell_is_neutralized(planted_report: Path) -> None:
    seen = 0
    for path in planted_report.glob("*.csv"):
        with path.open(encoding="utf-8", newline="") as stream:
            for row in csv.reader(stream):
                for cell in row:
                    assert not cell.startswith(CSV_FORMULA_STARTS) or _is_number(cell), f"{path.name}: {cell!r}"
                    seen += any(p in cell for p in PLANTED)
    assert seen >= 2


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_measurements_sheet_is_pivotable(planted_report: Path) -> None:
    sheet = openpyxl.load_workbook(planted_report / "summary.xlsx")["measurements"]
    header = [cell.value for cell in sheet[1]]

    assert header == ["item", "check", "node", "nic", "rail", "metric", "value", "unit", "operator", "threshold",
                      "source", "outcome", "timestamp"]
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref == f"A1:M{sheet.max_row}"
    assert {row[1].value for row in sheet.iter_rows(min_row=2)} == {"DRV-001", "DRV-002"}


def test_letter_paper_pdf_files(planted_report: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    for name in ("report.pdf", "report-annex.pdf"):
        if not (planted_report / name).is_file():
            pytest.skip("Chromium not installed")
        box = pypdf.PdfReader(planted_report / name).pages[0].mediabox
        assert (round(float(box.width)), round(float(box.height))) == (612, 792)  # 8.5 x 11 in
