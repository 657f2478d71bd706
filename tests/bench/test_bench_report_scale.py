"""The acceptance report at the product's scale: a SYNTHESIZED results file of 256 nodes x 8 rails (every
node and NIC check of the profile, PERF-002 and PERF-007 as node-pair records with one entry per rail for
all 32,640 node pairs, injected faults; tools/synthesize_results.py).

The HTML must build within 60 s and stay under 30 MB: heatmaps are images, every failure is listed, the
per-item table goes to the XLSX/CSV only. The build is single-threaded, so its CPU time is what it takes
on an idle machine; the wall time is printed beside it (a busy test machine stretches it). The workbook and
CSV files are benchmarked on 32 nodes here; ``python -m tools.report_scale`` times every file at 256 nodes."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from pytest_gpufabric.reporting.acceptance.build import ReportFiles, build_report
from pytest_gpufabric.reporting.acceptance.exports import RESULTS_CSV_TYPES
from tools.synthesize_results import Synthesized, synthesize

NODES, RAILS = 256, 8
TABLE_NODES = 32
HTML_CPU_LIMIT_S = 60.0
HTML_SIZE_LIMIT = 30 * 1024 * 1024


def test_html_of_256_nodes_by_8_rails(tmp_path: Path) -> None:
    synthesized = synthesize(tmp_path / "results", NODES, RAILS)
    files = build_report(synthesized.path, tmp_path / "report", tables=False, pdf=False)
    html = files.html.read_text(encoding="utf-8")

    assert files.html_cpu_seconds <= HTML_CPU_LIMIT_S
    assert files.html.stat().st_size < HTML_SIZE_LIMIT
    assert html.count("data-node-id=") == synthesized.outcomes["failed"] + synthesized.outcomes["error"]
    assert html.count("class=\"heatmap\"") == 2 * RAILS  # PERF-002 bandwidth and PERF-007 latency, per rail
    print(f"\n{NODES}x{RAILS} report: {synthesized.path.stat().st_size / 1e6:.0f} MB results, "
          f"{sum(synthesized.outcomes.values())} items; HTML {files.html.stat().st_size / 1e6:.1f} MB in "
          f"{files.html_seconds:.1f} s wall / {files.html_cpu_seconds:.1f} s CPU")


@pytest.fixture
def table_results(tmp_path: Path) -> Synthesized:
    return synthesize(tmp_path / "results", TABLE_NODES, RAILS)


def test_tables_of_32_nodes(table_results: Synthesized, tmp_path: Path, benchmark: pytest.FixtureRequest) -> None:
    def build() -> ReportFiles:
        return build_report(table_results.path, tmp_path / "report", pdf=False)

    started = time.perf_counter()
    if benchmark.disabled:  # type: ignore[attr-defined]  # pytest-benchmark is off under xdist: time it here
        files = build()
    else:
        files = benchmark.pedantic(build, rounds=1, iterations=1)  # type: ignore[attr-defined]
    seconds = time.perf_counter() - started
    results_csv = pd.read_csv(tmp_path / "report" / "results.csv", dtype=RESULTS_CSV_TYPES)
    sheet = openpyxl.load_workbook(files.workbook, read_only=True)["results"]
    rows = list(sheet.iter_rows(values_only=True))

    assert Counter(results_csv["outcome"]) == table_results.outcomes
    assert Counter(row[rows[0].index("outcome")] for row in rows[1:]) == table_results.outcomes
    assert results_csv["measured"].dtype == "string"
    print(f"\n{TABLE_NODES}x{RAILS} report, every file but the PDF: {seconds:.1f} s (HTML {files.html_seconds:.1f} s); "
          f"summary.xlsx {files.workbook.stat().st_size / 1e6:.1f} MB, "
          f"CSV {sum(p.stat().st_size for p in files.csvs) / 1e6:.1f} MB")
