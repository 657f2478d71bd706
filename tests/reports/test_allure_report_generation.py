"""The real Allure command line turns the sample session's results into a report, with and without xdist."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from report_dom import allure_status_counts, is_remote, loaded_resources
from sample_session import EXPECTED_ALLURE_STATUSES, SampleSession

from pytest_gpufabric.reporting.render import generate_allure_report, render_html_in_chromium


def _expected_statistic() -> dict[str, int]:
    statistic = {"passed": 0, "failed": 0, "broken": 0, "skipped": 0, "unknown": 0}
    for status in EXPECTED_ALLURE_STATUSES.values():
        statistic[status] += 1
    return {**statistic, "total": len(EXPECTED_ALLURE_STATUSES)}


def test_results_written_for_every_test(sample_session: SampleSession) -> None:
    results = list(sample_session.allure_results.glob("*-result.json"))

    assert len(results) == len(EXPECTED_ALLURE_STATUSES), sample_session.output


def test_report_lists_every_test_case(sample_session: SampleSession, allure_report_of: Callable[[Path], Path]) -> None:
    report = allure_report_of(sample_session.allure_results)

    cases = [json.loads(path.read_text(encoding="utf-8")) for path in (report / "data" / "test-cases").glob("*.json")]
    summary = json.loads((report / "widgets" / "summary.json").read_text(encoding="utf-8"))

    assert {case["name"]: case["status"] for case in cases} == EXPECTED_ALLURE_STATUSES
    assert len(cases) == len(EXPECTED_ALLURE_STATUSES)
    assert summary["statistic"] == _expected_statistic()


def test_report_loads_nothing_remote(sample_session: SampleSession, allure_report_of: Callable[[Path], Path]) -> None:
    """Allure's analytics tag is switched off: the report must open at a site without internet."""
    report = allure_report_of(sample_session.allure_results)

    resources = loaded_resources((report / "index.html").read_text(encoding="utf-8"))

    assert resources
    assert [address for address in resources if is_remote(address)] == []


def test_single_file_report_renders_offline(
    sample_session_factory: Callable[[int], SampleSession], allure_cli: Path, chromium: Path, tmp_path: Path
) -> None:
    """The one-file report (what is handed over) opens from disk, offline; checked on the xdist run."""
    results = sample_session_factory(2).allure_results
    report = generate_allure_report(results, tmp_path / "allure-single", single_file=True)

    suites_dom = render_html_in_chromium(report / "index.html", fragment="suites")

    assert sorted(path.name for path in report.iterdir()) == ["index.html"]
    expected = _expected_statistic()
    shown = allure_status_counts(suites_dom)
    assert shown == {status: expected[status] for status in ("failed", "broken", "passed", "skipped", "unknown")}


def test_two_successive_reports_show_a_trend_of_two(allure_cli: Path, tmp_path: Path) -> None:
    """Each report keeps its history beside it; the next one reads it: Allure's trend gets one point per run."""
    from sample_session import run_sample_session

    report = tmp_path / "allure-report"
    for number in (1, 2):
        session = run_sample_session(tmp_path / f"run-{number}", workers=0)
        generate_allure_report(session.allure_results, report)

    trend = json.loads((report / "widgets" / "history-trend.json").read_text(encoding="utf-8"))
    assert len(trend) == 2
    assert (report.parent / "allure-report.history" / "history.json").is_file()
