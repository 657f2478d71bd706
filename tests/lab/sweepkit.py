"""A PERF-002 pair sweep over a namespace lab with the perftest STAND-IN, run as a pytest process of its own: start
it, wait until it measures, inject a fault or send a signal, then read its schedule log, results and output.

Used by the lab failure and stop tests and by tools/lab_failure_benchmark.py. Every wait is bounded; a sweep that
outlives its bound is killed by its own PID (and only its own processes: the pytest process and its workers)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pytest_gpufabric.exclusive import ScheduleLog, ScheduleRecord
from pytest_gpufabric.lab import Lab
from tests.lab.suite_run import processes_in_node

REPO = Path(__file__).resolve().parents[2]
CHECK_TEST = "suites/acceptance/test_perftest.py::test_nic_switch_nic_bandwidth"
PROFILE = "lab-perftest-standin"
POLL_S = 0.05
PERFTEST_MARKERS = ("ib_write_bw", "nc -4 -l")  # the stand-in's client/server and the server's listener


@dataclass
class Sweep:
    """One running sweep: its pytest process (the controller), its folder, when it started."""

    process: subprocess.Popen[bytes]
    folder: Path
    started: float
    finished: float | None = None
    returncode: int | None = None
    _output: Path = field(init=False)

    def __post_init__(self) -> None:
        self._output = self.folder / "output.txt"

    @property
    def schedule_path(self) -> Path:
        return self.folder / "schedule.jsonl"

    def spans(self) -> list[ScheduleRecord]:
        """The measurements logged so far (one per node pair, all its rails)."""
        return ScheduleLog(self.schedule_path).read()

    def wait_for_spans(self, count: int, timeout_s: float) -> float:
        """Wait until ``count`` measurements (node pairs) have ended; the wall-clock time they had."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.schedule_path.exists() and len(self.spans()) >= count:
                return time.time()
            if self.process.poll() is not None:
                raise AssertionError(f"the sweep ended before {count} measurements:\n{self.output()[-3000:]}")
            time.sleep(POLL_S)
        raise AssertionError(f"no {count} measurements within {timeout_s:g} s:\n{self.output()[-3000:]}")

    def worker_pids(self) -> list[int]:
        """The PIDs of the controller's xdist workers (its child Python processes)."""
        return [pid for pid in _children(self.process.pid) if b"python" in _cmdline(pid)]

    def wait(self, timeout_s: float) -> int | None:
        """Wait for the controller to end (None: it did not within ``timeout_s``, and it and its workers were
        killed by their PIDs)."""
        try:
            self.returncode = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self.finished = time.time()
        return self.returncode

    def kill(self) -> None:
        """SIGKILL the controller and its workers, by their PIDs."""
        for pid in [*self.worker_pids(), self.process.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait(timeout=30)

    @property
    def wall_s(self) -> float:
        assert self.finished is not None
        return self.finished - self.started

    def output(self) -> str:
        return self._output.read_text(errors="replace") if self._output.exists() else ""

    def records(self) -> list[dict[str, object]]:
        """The results.jsonl records the run wrote."""
        path = self.folder / "results.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def start_sweep(site: Path, folder: Path, *extra: str, workers: int = 2) -> Sweep:
    """Start ``pytest`` on PERF-002 against ``site``: schedule log and results in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "pytest", CHECK_TEST, f"--cluster={site}", f"--schedule-log={folder / 'schedule.jsonl'}",
            f"--gpufabric-results={folder}", f"--thresholds-dir={REPO / 'thresholds'}", "-p", "no:cacheprovider", "-q",
            "-rfE", "-n", str(workers), *extra]
    with (folder / "output.txt").open("wb") as output:
        process = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT)
    return Sweep(process, folder, time.time())


def perftest_processes(lab: Lab) -> dict[str, list[str]]:
    """Node -> the stand-in perftest processes running in its namespace (clients, servers, listeners)."""
    found = {}
    for node in lab.nodes:
        lines = [line for line in processes_in_node(lab, node.name) if any(marker in line for marker in PERFTEST_MARKERS)]
        if lines:
            found[node.name] = lines
    return found


def outcomes_by_item(records: list[dict[str, object]]) -> dict[str, str]:
    """Node pair (``node01->node02``) -> the outcome of its PERF-002 item."""
    return {str(record["item"]): str(record["outcome"]) for record in records if record.get("check_id") == "PERF-002"}


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
