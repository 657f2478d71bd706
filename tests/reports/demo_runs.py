"""Replays of the bundled demo as separate pytest processes (real runs, real files), for the verdict's tests:
subsets, deselections, retests, crashed workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
RUN_TIMEOUT_S = 600


@dataclass(frozen=True)
class SuiteRun:
    """A finished replay: exit code, output and the run directory it wrote (None when it wrote none)."""

    exit_code: int
    output: str
    results_root: Path
    run_dir: Path  # what ``latest`` pointed at when the run ended (a later run moves ``latest``)

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (self.run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]

    def verdict_line(self) -> str:
        """The verdict the terminal printed (the gpufabric acceptance section)."""
        return next(line for line in self.output.splitlines() if line.startswith("verdict"))


def replay(results_root: Path, *args: str, paths: tuple[str, ...] = ("suites/acceptance",),
           recording: Path = DEMO, pythonpath: Path | None = None) -> SuiteRun:
    """``pytest PATHS --cluster=demo --replay=RECORDING ARGS`` in a fresh process, results under ``results_root``."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", *paths, f"--cluster={recording / 'site.yaml'}", f"--replay={recording}",
         "-p", "no:cacheprovider", "-q", f"--gpufabric-results={results_root}", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )
    return SuiteRun(completed.returncode, completed.stdout + completed.stderr, results_root,
                    (results_root / "latest").resolve())
