"""pytest-html reports render offline in real headless Chromium, with and without xdist."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from report_dom import is_remote, loaded_resources, rendered_result_rows
from sample_session import (
    EXPECTED_EXIT_CODE,
    EXPECTED_HTML_OUTCOMES,
    NO_TESTS_EXIT_CODE,
    SampleSession,
    run_sample_session,
)

from pytest_gpufabric.reporting.render import render_html_in_chromium

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_sample_session_completes_with_its_failure(sample_session: SampleSession) -> None:
    assert sample_session.exit_code == EXPECTED_EXIT_CODE, sample_session.output
    assert sample_session.html_report.is_file(), sample_session.output


def test_rendered_rows_show_every_result(sample_session: SampleSession, rendered_dom: Callable[[Path], str]) -> None:
    rows = rendered_result_rows(rendered_dom(sample_session.html_report))

    assert {row.nodeid: row.outcome for row in rows} == EXPECTED_HTML_OUTCOMES
    assert len(rows) == len(EXPECTED_HTML_OUTCOMES)


def test_rows_exist_only_after_scripts_ran(sample_session: SampleSession) -> None:
    """The saved file holds the results as embedded data only; the rows above came from its JavaScript."""
    raw = sample_session.html_report.read_text(encoding="utf-8")

    assert rendered_result_rows(raw) == []
    assert "data-jsonblob" in raw


def test_report_is_self_contained(sample_session: SampleSession, rendered_dom: Callable[[Path], str]) -> None:
    raw = sample_session.html_report.read_text(encoding="utf-8")
    dom = rendered_dom(sample_session.html_report)

    for page in (raw, dom):
        resources = loaded_resources(page)
        assert [address for address in resources if is_remote(address)] == []
        assert [address for address in resources if not address.startswith("data:")] == []


def test_screenshot_is_written(
    sample_session_factory: Callable[[int], SampleSession], chromium: Path, tmp_path: Path
) -> None:
    screenshot = tmp_path / "report.png"

    dom = render_html_in_chromium(sample_session_factory(0).html_report, screenshot_path=screenshot)

    assert rendered_result_rows(dom)
    assert screenshot.read_bytes().startswith(PNG_SIGNATURE)


def test_report_of_a_run_without_tests_renders_no_rows(rendered_dom: Callable[[Path], str], tmp_path: Path) -> None:
    empty = run_sample_session(tmp_path, workers=0, keyword="no_sample_test_has_this_name")

    dom = rendered_dom(empty.html_report)

    assert empty.exit_code == NO_TESTS_EXIT_CODE, empty.output
    assert rendered_result_rows(dom) == []
    assert "No results found" in dom
