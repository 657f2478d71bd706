"""Replay suites of the bundled demo in a fresh pytest process and read its results file."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_gpufabric.reporting.acceptance.load import read_records

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"


def replay_records(suites: Sequence[str], out: Path, workers: int) -> list[dict[str, Any]]:
    """The results records of replaying ``suites`` on the demo; the run must complete with failures (exit 1:
    the demo's injected faults)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *suites, f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}",
         f"--gpufabric-results={out}", "-p", "no:cacheprovider", "-q", "-n", str(workers)],
        cwd=REPO, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    return read_records(out / "results.jsonl")[0]
