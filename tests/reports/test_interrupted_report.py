"""A run stopped with Ctrl-C keeps what it recorded: a real SIGINT after a few items of the demo replay leaves
results.jsonl with the items that completed, the acceptance report of the run's end (--gpufabric-report)
says on its cover that the run was interrupted and is not accepted, and ``gpufabric report`` builds the same
report again from the results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from acceptance_dom import Element, parse_dom

from pytest_gpufabric.cli import main

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
INTERRUPT_AFTER = 15
RUN_TIMEOUT_S = 300
INTERRUPTED_EXIT_CODE = 2  # pytest.ExitCode.INTERRUPTED

# Loaded into the replay with -p: after INTERRUPT_AFTER items the process sends itself SIGINT (Ctrl-C).
INTERRUPTING_PLUGIN = f"""
import os
import signal


class InterruptAfter:
    def __init__(self, items):
        self.left = items

    def pytest_runtest_logfinish(self):
        self.left -= 1
        if self.left == 0:
            os.kill(os.getpid(), signal.SIGINT)


def pytest_configure(config):
    # Ctrl-C as in a terminal, also where the run inherited SIGINT ignored (a job started in the background)
    # or blocked (a parent that held its stop signals while it started this run)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {{signal.SIGINT}})
    config.pluginmanager.register(InterruptAfter({INTERRUPT_AFTER}), "interrupt-after")
"""


@pytest.fixture(scope="module")
def interrupted_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    workdir = tmp_path_factory.mktemp("interrupted")
    (workdir / "interrupt_after.py").write_text(INTERRUPTING_PLUGIN, encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(workdir), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance/test_drivers.py", "suites/acceptance/test_nvm.py",
         f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}", "-p", "interrupt_after", "-p", "no:cacheprovider",
         "-q", f"--gpufabric-results={workdir / 'results'}", f"--gpufabric-report={workdir / 'report'}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == INTERRUPTED_EXIT_CODE, output[-3000:]
    return workdir, output


def _records(workdir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (workdir / "results" / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def _cover(report: Path) -> Element:
    return parse_dom((report / "report.html").read_text(encoding="utf-8")).by_id("cover")


def test_results_keep_the_items_that_completed(interrupted_run: tuple[Path, str]) -> None:
    workdir, output = interrupted_run

    assert len(_records(workdir)) == INTERRUPT_AFTER
    assert "KeyboardInterrupt" in output
    assert json.loads((workdir / "results" / "run.json").read_text(encoding="utf-8"))["interrupted"] is True


def test_the_runs_report_is_marked_interrupted(interrupted_run: tuple[Path, str]) -> None:
    workdir, output = interrupted_run
    cover = _cover(workdir / "report")
    counts = Counter(r["outcome"] for r in _records(workdir))

    assert f"acceptance report: {(workdir / 'report' / 'report.html').resolve()}" in output
    assert "INTERRUPTED at " in cover.text
    assert cover.by_id("verdict").text.startswith(f"not accepted: the run was interrupted ({INTERRUPT_AFTER} items recorded); "
                                                  "partial run")
    assert {o: int(cover.by_id(f"total-{o}").text) for o in ("passed", "failed", "error", "skipped")} == {
        o: counts.get(o, 0) for o in ("passed", "failed", "error", "skipped")}


def test_gpufabric_report_rebuilds_it_from_the_results(interrupted_run: tuple[Path, str], tmp_path: Path) -> None:
    workdir, _ = interrupted_run

    assert main(["report", str(workdir / "results"), "-o", str(tmp_path), "--no-pdf"]) == 0

    again, first = _cover(tmp_path), _cover(workdir / "report")
    assert again.by_id("verdict").text == first.by_id("verdict").text
    assert (tmp_path / "summary.xlsx").is_file()
