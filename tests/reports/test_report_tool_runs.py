"""The tool runner is bounded in time and says clearly what is missing or wrong."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pytest_gpufabric.reporting.render import (
    ReportToolError,
    ReportToolMissing,
    find_allure,
    generate_allure_report,
    render_html_in_chromium,
    run_bounded,
)

PROCESS_GONE_WAIT_S = 5.0


def _process_gone(pid: int) -> bool:
    """True once ``pid`` no longer runs (absent, or a zombie waiting for its new parent to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


def test_run_bounded_returns_output_and_exit_code() -> None:
    run = run_bounded(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout_s=10)

    assert (run.exit_code, run.stdout, run.stderr) == (3, "out\n", "err\n")


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    script = f"sleep 60 & echo $! > {pid_file}; wait"

    started = time.monotonic()
    with pytest.raises(ReportToolError, match=r"did not finish within 1 s and was killed"):
        run_bounded(["sh", "-c", script], timeout_s=1)

    assert time.monotonic() - started < 10
    grandchild = int(pid_file.read_text(encoding="ascii"))
    deadline = time.monotonic() + PROCESS_GONE_WAIT_S
    while not _process_gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _process_gone(grandchild), f"sleep (pid {grandchild}) outlived the timeout"


def test_allure_missing_names_the_install_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    with pytest.raises(ReportToolMissing, match=r"install-report-deps\.sh"):
        find_allure(tools_dir=tmp_path / "no-tools")


def test_render_of_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReportToolError, match=r"no such file"):
        render_html_in_chromium(tmp_path / "absent.html")


def test_generate_without_results_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReportToolError, match=r"no Allure results directory .*--alluredir"):
        generate_allure_report(tmp_path / "absent-results", tmp_path / "report")


def test_chromium_run_past_its_time_limit_fails(chromium: Path, tmp_path: Path) -> None:
    page = tmp_path / "busy.html"
    page.write_text("<html><body><script>while (true) {}</script></body></html>", encoding="utf-8")

    with pytest.raises(ReportToolError, match=r"did not finish within 1 s"):
        render_html_in_chromium(page, timeout_s=1)
