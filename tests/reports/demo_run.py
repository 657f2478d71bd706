"""One replay of the bundled demo that writes every report: results.jsonl, pytest-html, Allure results and
the acceptance report (HTML, XLSX, CSV, PDF)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_gpufabric.reporting.acceptance.load import read_records

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
DEMO_TIMEOUT_S = 600
COMPLETED_WITH_FAILURES = 1  # the demo cluster has faults on purpose


@dataclass(frozen=True)
class DemoRun:
    """A finished demo replay and the files it wrote."""

    workdir: Path
    exit_code: int
    output: str

    @property
    def results_file(self) -> Path:
        return self.workdir / "results" / "results.jsonl"

    @property
    def html_report(self) -> Path:
        return self.workdir / "demo.html"

    @property
    def allure_results(self) -> Path:
        return self.workdir / "allure-results"

    @property
    def report_dir(self) -> Path:
        return self.workdir / "report"

    def records(self) -> list[dict[str, Any]]:
        return read_records(self.results_file)[0]

    def outcome_counts(self) -> dict[str, int]:
        counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
        for record in self.records():
            counts[record["outcome"]] += 1
        return counts


def replay(recording: Path, workdir: Path, *options: str, workers: int = 2) -> DemoRun:
    """Replay the acceptance suite on a recording of the demo cluster, its results in ``workdir/results``."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={DEMO / 'site.yaml'}", f"--replay={recording}",
         "-n", str(workers), "-p", "no:cacheprovider", "-q", f"--gpufabric-results={workdir / 'results'}", *options],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=DEMO_TIMEOUT_S, check=False,
    )
    return DemoRun(workdir=workdir, exit_code=completed.returncode, output=completed.stdout + completed.stderr)


def run_demo(workdir: Path, workers: int = 2) -> DemoRun:
    """Replay the acceptance suite on the demo recording with every report switched on."""
    return replay(DEMO, workdir, f"--html={workdir / 'demo.html'}", "--self-contained-html",
                  f"--alluredir={workdir / 'allure-results'}", f"--gpufabric-report={workdir / 'report'}", workers=workers)
