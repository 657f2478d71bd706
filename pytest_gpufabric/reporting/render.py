"""Run the external report tools: headless Chromium (render a report offline) and the Allure command line.

Both tools are installed by ``tools/install-report-deps.sh`` (``make test`` calls it). Every run is bounded
in time; on timeout the whole process group of the tool (Chromium starts helper processes) is killed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.errors import GpufabricError

INSTALL_HINT = "run tools/install-report-deps.sh as root (make test does this)"
CHROMIUM_CANDIDATES: tuple[str, ...] = ("/usr/bin/chromium", "chromium", "chromium-browser")
PROJECT_ROOT = Path(__file__).resolve().parents[2]
ALLURE_TOOLS_DIR = PROJECT_ROOT / ".tools" / "allure"

# Allure 2 adds a Google Analytics tag to index.html and posts usage data while generating, unless this
# variable is "true". Reports are handed to customers and opened offline: never phone home.
ALLURE_ENV: Mapping[str, str] = {"ALLURE_NO_ANALYTICS": "true"}

# Offline rendering: no network, no profile, no background services. Name resolution is mapped to
# "not found", so a report that needs the internet shows it by missing content instead of fetching.
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)


class ReportToolError(GpufabricError):
    """A report tool ran but did not produce what was asked (exit status, timeout, missing output)."""


class ReportToolMissing(ReportToolError):
    """A report tool (Chromium, Java, the Allure command line) is not installed."""


@dataclass(frozen=True)
class ToolRun:
    """What a finished tool run printed."""

    argv: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str


def find_chromium() -> Path:
    """Path of the system Chromium; ReportToolMissing when there is none."""
    for candidate in CHROMIUM_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return Path(found)
    raise ReportToolMissing(f"Chromium not found (looked for {', '.join(CHROMIUM_CANDIDATES)}); {INSTALL_HINT}")


def find_allure(tools_dir: Path = ALLURE_TOOLS_DIR) -> Path:
    """Path of the Allure 2 command line: the project's pinned copy first, then PATH."""
    pinned = tools_dir / "node_modules" / ".bin" / "allure"
    if os.access(pinned, os.X_OK):
        return pinned
    found = shutil.which("allure")
    if found:
        return Path(found)
    raise ReportToolMissing(f"Allure command line not found (neither {pinned} nor 'allure' on PATH); {INSTALL_HINT}")


def find_java() -> Path:
    """Path of the Java runtime the Allure command line needs (JAVA_HOME first, like the allure script)."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and os.access(Path(java_home) / "bin" / "java", os.X_OK):
        return Path(java_home) / "bin" / "java"
    found = shutil.which("java")
    if found:
        return Path(found)
    raise ReportToolMissing(
        f"Java runtime not found (Allure needs it; JAVA_HOME unset and no 'java' on PATH); {INSTALL_HINT}"
    )


def run_bounded(argv: Sequence[str], timeout_s: float, env: Mapping[str, str] | None = None) -> ToolRun:
    """Run a tool in its own process group; kill that group when it runs past ``timeout_s``."""
    argv = tuple(str(arg) for arg in argv)
    with subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env=None if env is None else {**os.environ, **env},
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            process.communicate()
            raise ReportToolError(
                f"{Path(argv[0]).name} did not finish within {timeout_s:g} s and was killed"
            ) from None
        finally:
            if process.poll() is None:
                _kill_group(process.pid)
    return ToolRun(argv=argv, exit_code=process.returncode, stdout=stdout, stderr=stderr)


def _kill_group(pid: int) -> None:
    """Kill the process group led by ``pid`` (a group this module started with start_new_session)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def render_html_in_chromium(
    html_path: Path | str,
    screenshot_path: Path | str | None = None,
    *,
    fragment: str | None = None,
    timeout_s: float = 60.0,
    virtual_time_budget_ms: int = 10_000,
    window_size: tuple[int, int] = (1280, 2000),
) -> str:
    """Open a local HTML file in headless Chromium, offline, and return the DOM after its scripts ran.

    ``virtual_time_budget_ms`` is the page's virtual time for scripts and timers (it passes faster than
    real time); ``timeout_s`` bounds the real time of the whole run. With ``screenshot_path`` a PNG of the
    rendered page is written too. ``fragment`` opens a view of a single-page report (Allure: "suites").
    """
    page = Path(html_path).resolve()
    if not page.is_file():
        raise ReportToolError(f"cannot render {page}: no such file")
    chromium = find_chromium()
    with tempfile.TemporaryDirectory(prefix="gpufabric-chromium-") as profile_dir:
        argv: list[str] = [
            str(chromium),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile_dir}",
            f"--virtual-time-budget={virtual_time_budget_ms}",
            f"--window-size={window_size[0]},{window_size[1]}",
        ]
        if screenshot_path is not None:
            argv.append(f"--screenshot={Path(screenshot_path).resolve()}")
        address = page.as_uri() if fragment is None else f"{page.as_uri()}#{fragment}"
        argv += ["--dump-dom", address]
        run = run_bounded(argv, timeout_s)
    if run.exit_code != 0 or "<html" not in run.stdout.lower():
        raise ReportToolError(f"Chromium could not render {page} (exit {run.exit_code}): {_last_lines(run.stderr)}")
    if screenshot_path is not None and not Path(screenshot_path).is_file():
        raise ReportToolError(f"Chromium rendered {page} but wrote no screenshot to {screenshot_path}")
    return run.stdout


HISTORY_SUFFIX = ".history"


def generate_allure_report(
    results_dir: Path | str,
    report_dir: Path | str,
    *,
    single_file: bool = False,
    timeout_s: float = 180.0,
    allure: Path | None = None,
) -> Path:
    """Build the Allure 2 HTML report from ``results_dir`` into ``report_dir`` (replaced) and return it.

    ``single_file=True`` writes one self-contained index.html that opens from disk without a web server;
    the default layout keeps the data files (data/test-cases/*.json, widgets/summary.json) separate.
    History carries over: the previous report's ``history/`` is kept beside it (``<report_dir>.history``) and
    copied into the results before generating, so Allure's trend shows one point per report generated.
    """
    results = Path(results_dir).resolve()
    report = Path(report_dir).resolve()
    if not results.is_dir():
        raise ReportToolError(f"no Allure results directory at {results} (run pytest with --alluredir)")
    cli = allure if allure is not None else find_allure()
    find_java()
    history = report.with_name(report.name + HISTORY_SUFFIX)
    if history.is_dir():  # the previous report's trend data: Allure reads it from the results' history/
        shutil.copytree(history, results / "history", dirs_exist_ok=True)
    if single_file:  # a one-file report keeps no history folder: generate the folder layout for it first
        _allure_generate(cli, results, history.with_name(history.name + ".report"), False, timeout_s)
        _keep_history(history.with_name(history.name + ".report"), history, remove_report=True)
    _allure_generate(cli, results, report, single_file, timeout_s)
    if not single_file:
        _keep_history(report, history)
    return report


def _allure_generate(cli: Path, results: Path, report: Path, single_file: bool, timeout_s: float) -> None:
    argv = [str(cli), "generate", "--clean", "-o", str(report), *(["--single-file"] if single_file else []), str(results)]
    run = run_bounded(argv, timeout_s, env=ALLURE_ENV)
    if run.exit_code != 0 or not (report / "index.html").is_file():
        raise ReportToolError(
            f"allure generate failed for {results} (exit {run.exit_code}): {_last_lines(run.stderr or run.stdout)}"
        )


def _keep_history(report: Path, history: Path, *, remove_report: bool = False) -> None:
    """Keep a report's history/ beside it (``<report>.history``) for the next report's trend."""
    if (report / "history").is_dir():
        shutil.rmtree(history, ignore_errors=True)
        shutil.copytree(report / "history", history)
    if remove_report:
        shutil.rmtree(report, ignore_errors=True)


def _last_lines(text: str, count: int = 5) -> str:
    """The last lines of a tool's output, joined for a one-line message."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:]) if lines else "no output"
