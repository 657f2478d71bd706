"""Outliers on SYNTHESIZED results (tools/synthesize_results.py, 16 nodes x 8 rails, every check of the profile):
one NIC at 85 % of its peers, above every threshold, is flagged as an outlier with each of its partners, named as
the one suspect, and shown in the report (overview ring, outlier table, suspects, sheets); without it, no outlier
is flagged at all."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from acceptance_dom import Element, parse_dom

from pytest_gpufabric.reporting.acceptance.build import ReportFiles, build_report
from pytest_gpufabric.reporting.acceptance.digest import RunDigest
from pytest_gpufabric.reporting.acceptance.fleet_view import FleetAnalysis, analyse
from pytest_gpufabric.reporting.acceptance.load import load_run, read_run_info
from tools.synthesize_results import PAIR_METRICS, Synthesized, synthesize

NODES, RAILS = 16, 8
PAIR_VIEW_CHECKS = [check for check, (metric, _) in PAIR_METRICS.items() if metric != "loss_percent"] + ["PERF-006"]


def analysed(synthesized: Synthesized) -> tuple[FleetAnalysis, list[dict]]:  # type: ignore[type-arg]
    info = read_run_info(synthesized.path.parent)
    digest = RunDigest(info.rails)
    run = load_run(synthesized.path, keep=digest.take)
    return analyse(digest, info), run.records


@pytest.fixture(scope="module")
def slow_nic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Synthesized, ReportFiles]:
    out = tmp_path_factory.mktemp("slow-nic")
    synthesized = synthesize(out / "results", NODES, RAILS, ("slow-nic",))
    return synthesized, build_report(synthesized.path, out / "report", pdf=False)


def test_the_slow_nic_passes_everywhere(slow_nic: tuple[Synthesized, ReportFiles]) -> None:
    synthesized, _ = slow_nic

    assert set(synthesized.outcomes) == {"passed"}


def test_the_slow_nic_is_an_outlier_with_every_partner_and_the_only_suspect(slow_nic: tuple[Synthesized, ReportFiles]) -> None:
    synthesized, _ = slow_nic
    slow = synthesized.faults.slow_nic
    analysis, records = analysed(synthesized)
    found = analysis.outliers

    assert set(found["kind"]) == {"pair"} and found["passed"].all()
    assert sorted(set(found["check_id"])) == sorted(PAIR_VIEW_CHECKS)  # bandwidth down, latency up: each check
    assert (found["item"].str.contains(f"{slow} ", regex=False) | found["item"].str.endswith(slow)).all()
    assert len(found) == len(PAIR_VIEW_CHECKS) * (NODES - 1)  # every partner, every check
    assert found["gap"].between(0.13, 0.19).all()  # 85 % of the peers (latency: 1 / 0.85)
    localization = analysis.localization(records)
    assert [end.end for end in localization.outlier_ends] == [slow] and localization.outlier_links == ()
    assert localization.suspect_ends == () and localization.suspect_links == ()


def test_the_report_shows_the_outlier_and_its_suspect(slow_nic: tuple[Synthesized, ReportFiles]) -> None:
    synthesized, files = slow_nic
    slow = synthesized.faults.slow_nic
    dom: Element = parse_dom(files.html.read_text(encoding="utf-8"))

    marks = [mark for mark in dom.by_id("pairs").find_all("span") if "mark" in mark.attrs.get("class", "")]
    assert {(mark.attrs["data-end"], mark.attrs["data-kind"]) for mark in marks} == {(slow, "outlier")}
    assert f"outlier suspect {slow}" in dom.by_id("suspect-table").text
    listed = [row.attrs["data-item"] for row in dom.by_id("outlier-table").find_all("tr") if "data-item" in row.attrs]
    assert listed and all(slow in item for item in listed)
    verdict = dom.by_id("verdict").text  # a warning: the verdict is the thresholds' (no plan.json: coverage unknown)
    assert verdict.endswith("; no finding") and "outlier" not in verdict
    assert "values pass their thresholds but are outliers among their peers: a warning" in dom.by_id("cover").text
    workbook = openpyxl.load_workbook(files.workbook, read_only=True)
    assert {"fleet statistics", "outliers"} <= set(workbook.sheetnames)
    assert sum(1 for _ in workbook["outliers"].iter_rows()) == 1 + len(PAIR_VIEW_CHECKS) * (NODES - 1)


def test_without_the_slow_nic_no_outlier_is_flagged(tmp_path: Path) -> None:
    synthesized = synthesize(tmp_path / "results", NODES, RAILS, ())
    analysis, records = analysed(synthesized)
    files = build_report(synthesized.path, tmp_path / "report", tables=False, pdf=False)
    dom = parse_dom(files.html.read_text(encoding="utf-8"))

    assert analysis.outliers.empty and analysis.localization(records).empty
    assert not analysis.statistics.empty
    assert dom.by_id("no-outliers").text == "No value stands out from its peers."
    assert not [span for span in dom.by_id("pairs").find_all("span") if "mark" in span.attrs.get("class", "")]
