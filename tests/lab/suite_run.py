"""Run the acceptance suite in a subprocess against a lab's site.yaml and read what it wrote.

Used by the lab acceptance tests and by tools/lab_measure.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.lab import Lab, NodeRef
from pytest_gpufabric.lab.iproute import namespace_pids
from pytest_gpufabric.reporting.acceptance.load import read_records

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "suites" / "acceptance"
SUITE_TIMEOUT_S = 240
# The catalog checks whose commands exist on plain Linux hosts: they give real verdicts on the lab.
LIVE_CHECKS = frozenset({
    "HOST-001", "HOST-002", "HOST-004", "HOST-006", "HOST-007", "HOST-008",
    "LNK-002", "LNK-005", "LNK-006", "NET-001", "NET-002",
})  # fmt: skip
ACCEPTED_LOGIN = "Accepted publickey"
PROBE_FILE_PREFIX = "probes/probe_"


@dataclass(frozen=True)
class SuiteRun:
    """One finished pytest run: exit status, output, wall time and its results.jsonl records."""

    returncode: int
    output: str
    wall_s: float
    results_file: Path
    records: tuple[dict[str, object], ...]

    def outcomes(self) -> dict[str, str]:
        """Test node id -> outcome (passed, failed, error, skipped)."""
        return {str(r["node_id"]): str(r["outcome"]) for r in self.records}

    def of(self, check_id: str) -> list[dict[str, object]]:
        return [r for r in self.records if r["check_id"] == check_id]

    def record(self, check_id: str, item: str) -> dict[str, object]:
        (found,) = [r for r in self.of(check_id) if r["item"] == item]
        return found

    def not_passed(self) -> dict[tuple[str, str], str]:
        """(check id, item) -> outcome of every item that neither passed nor was skipped."""
        return {
            (str(r["check_id"]), str(r["item"])): str(r["outcome"])
            for r in self.records
            if r["outcome"] not in ("passed", "skipped")
        }

    def split_probe(self, node: str) -> tuple[dict[str, object], SuiteRun]:
        """The record of the probe module's item on ``node`` (tests/lab/probes), and this run without
        any probe record."""
        (probe,) = [
            r
            for r in self.records
            if PROBE_FILE_PREFIX in str(r["node_id"]) and r["item"] == node
        ]
        rest = tuple(
            r for r in self.records if PROBE_FILE_PREFIX not in str(r["node_id"])
        )
        return probe, SuiteRun(
            self.returncode, self.output, self.wall_s, self.results_file, rest
        )

    def describe(self) -> str:
        """The run's tail and its non-passing items, for assertion messages."""
        lines = [f"{k}: {v}" for k, v in sorted(self.not_passed().items())]
        return (
            "\n".join(lines) + "\n--- pytest output (tail) ---\n" + self.output[-3000:]
        )


def run_suite(
    site: Path,
    results: Path,
    *options: str,
    paths: Sequence[Path] = (SUITE,),
    prefix: Sequence[str] = (),
    workers: int = 0,
    env: Mapping[str, str] | None = None,
) -> SuiteRun:
    """``python -m pytest PATHS --cluster=SITE --gpufabric-results=RESULTS OPTIONS`` (``prefix`` goes
    before the interpreter, e.g. ``unshare --net``; ``env`` adds variables); bounded by SUITE_TIMEOUT_S."""
    argv = [
        *prefix, sys.executable, "-m", "pytest", *map(str, paths), f"--cluster={site}",
        f"--gpufabric-results={results}", f"--thresholds-dir={REPO / 'thresholds'}", "-n", str(workers), "-q", "-p", "no:cacheprovider", "-rfE",
        *options,
    ]  # fmt: skip
    started = time.monotonic()
    environment = {**os.environ, **(env or {})}
    done = subprocess.run(
        argv,
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT_S,
        check=False,
    )
    wall_s = time.monotonic() - started
    results_file = results / "results.jsonl"
    records = (
        tuple(read_records(results_file)[0])
        if results_file.exists()
        else ()
    )
    return SuiteRun(
        done.returncode, done.stdout + done.stderr, wall_s, results_file, records
    )


def accepted_logins(lab: Lab, node: NodeRef) -> int:
    """How many SSH logins the node's sshd has accepted so far (lines of its log)."""
    log = lab.sshd(lab.node(node).name).files.log_file
    return log.read_text(errors="replace").count(ACCEPTED_LOGIN) if log.exists() else 0


def processes_in_node(lab: Lab, node: NodeRef) -> list[str]:
    """Command lines of every process inside the node's network namespace."""
    lines = []
    for pid in namespace_pids(lab.node(node).namespace):
        try:
            lines.append(
                Path(f"/proc/{pid}/cmdline")
                .read_bytes()
                .replace(b"\0", b" ")
                .decode(errors="replace")
                .strip()
            )
        except OSError:  # the process ended meanwhile
            continue
    return lines
