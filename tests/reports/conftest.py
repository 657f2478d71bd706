"""Fixtures for report tests: the real report tools (skipped only when not installed) and sample sessions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from demo_run import COMPLETED_WITH_FAILURES, DemoRun, run_demo
from sample_session import SampleSession, run_sample_session

from pytest_gpufabric.reporting.render import (
    ReportToolMissing,
    find_allure,
    find_chromium,
    find_java,
    generate_allure_report,
    render_html_in_chromium,
)

NOT_INSTALLED = "report tool not installed: {error} (make test installs it)"
RENDER_TIMEOUT_S = 240.0  # a pytest-html page of the whole demo (2,500 rows) on a busy 2-core machine


@pytest.fixture(scope="session")
def chromium() -> Path:
    """The system Chromium; skips the test with the reason when it is not installed."""
    try:
        return find_chromium()
    except ReportToolMissing as error:
        pytest.skip(NOT_INSTALLED.format(error=error))


@pytest.fixture(scope="session")
def allure_cli() -> Path:
    """The Allure command line with a Java runtime; skips the test with the reason when either is missing."""
    try:
        find_java()
        return find_allure()
    except ReportToolMissing as error:
        pytest.skip(NOT_INSTALLED.format(error=error))


@pytest.fixture(scope="session")
def rendered_dom(chromium: Path) -> Callable[[Path], str]:
    """Renders an HTML report in Chromium and returns its DOM; each file is rendered once per test process."""
    doms: dict[Path, str] = {}

    def render(html_path: Path) -> str:
        key = html_path.resolve()
        if key not in doms:
            doms[key] = render_html_in_chromium(key, timeout_s=RENDER_TIMEOUT_S)
        return doms[key]

    return render


@pytest.fixture(scope="session")
def allure_report_of(allure_cli: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """Generates the Allure report (data files kept apart) of a results directory, once per test process."""
    reports: dict[Path, Path] = {}

    def generate(results_dir: Path) -> Path:
        key = results_dir.resolve()
        if key not in reports:
            reports[key] = generate_allure_report(key, tmp_path_factory.mktemp("allure-report") / "report")
        return reports[key]

    return generate


@pytest.fixture(scope="session")
def sample_session_factory(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], SampleSession]:
    """Runs the sample session once per worker count (per test process) and returns the finished run."""
    finished: dict[int, SampleSession] = {}

    def sample_session(workers: int) -> SampleSession:
        if workers not in finished:
            finished[workers] = run_sample_session(tmp_path_factory.mktemp(f"sample-n{workers}"), workers)
        return finished[workers]

    return sample_session


@pytest.fixture(params=[0, 2], ids=["no-xdist", "xdist-2-workers"])
def sample_session(
    request: pytest.FixtureRequest, sample_session_factory: Callable[[int], SampleSession]
) -> SampleSession:
    """The sample session without xdist and with two xdist workers."""
    return sample_session_factory(request.param)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The demo replayed once per test process with every report switched on."""
    finished = run_demo(tmp_path_factory.mktemp("demo-run"))
    assert finished.exit_code == COMPLETED_WITH_FAILURES, finished.output[-3000:]
    return finished
