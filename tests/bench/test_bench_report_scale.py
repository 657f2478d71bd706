"""The acceptance report at the product's scale: a SYNTHESIZED results file of 256 nodes x 8 rails (every
node and NIC check of the profile, PERF-002 and PERF-007 as node-pair records with one entry per rail for
all 32,640 node pairs, injected faults; tools/synthesize_results.py).

The HTML must build within 60 s and stay under 30 MB: heatmaps are images, every failure is listed, the
per-item table goes to the XLSX/CSV only. The build is single-threaded, so its CPU time is what it takes
on an idle machine; the wall time is printed beside it (a busy test machine stretches it)."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest

from pytest_gpufabric.reporting.acceptance.build import build_report
from tools.synthesize_results import synthesize

NODES, RAILS = 256, 8
HTML_CPU_LIMIT_S = 60.0
HTML_SIZE_LIMIT = 30 * 1024 * 1024


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthesize(tmp_path_factory.mktemp("synth") / "results", NODES, RAILS)


def test_report_of_256_nodes_by_8_rails(results: Path, tmp_path: Path) -> None:
    started = time.perf_counter()
    files = build_report(results, tmp_path / "report", pdf=False)
    total_s = time.perf_counter() - started
    html = files.html.read_text(encoding="utf-8")
    records = pd.read_csv(files.csvs[1])  # results.csv: every item

    assert files.html_cpu_seconds <= HTML_CPU_LIMIT_S
    assert files.html.stat().st_size < HTML_SIZE_LIMIT
    bad = records[records["outcome"].isin(["failed", "error"])]
    assert html.count("data-node-id=") == len(bad)  # every failure listed
    assert html.count("<figure class=\"heatmap\"") + html.count("class='heatmap'") >= 2 * RAILS
    print(f"\n256x8 report: {results.stat().st_size / 1e6:.0f} MB results, {len(records)} items; HTML "
          f"{files.html.stat().st_size / 1e6:.1f} MB in {files.html_seconds:.1f} s wall / {files.html_cpu_seconds:.1f} s CPU; "
          f"all files {total_s:.1f} s")
