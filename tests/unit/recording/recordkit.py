"""Helpers for the recording tests: a real subprocess transport and a recording session that other
processes (multiprocessing, spawn) can run."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event
from pathlib import Path

from pytest_gpufabric.errors import TransportError
from pytest_gpufabric.recording import RecordingStore
from pytest_gpufabric.transport.base import CommandResult


@dataclass
class SubprocessTransport:
    """Runs each command with ``bash -c`` on this machine whatever the node; nodes outside
    ``reachable`` (when given) fail as an unreachable node would, with ``TransportError``."""

    reachable: frozenset[str] | None = None
    calls: list[tuple[str, str, str | None]] = field(default_factory=list)
    closed: bool = False

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None, guard: object = None) -> CommandResult:
        self.calls.append((node, command, item))
        if self.reachable is not None and node not in self.reachable:
            raise TransportError(node, "unreachable (no route to host)")
        started = time.monotonic()
        try:
            done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            raise TransportError(node, f"command timed out after {timeout_s:g}s") from None
        return CommandResult(node, command, done.stdout, done.stderr, done.returncode, time.monotonic() - started)

    def close(self) -> None:
        self.closed = True


def result(node: str, command: str, stdout: str = "", *, exit_code: int = 0, stderr: str = "") -> CommandResult:
    """A command result as a transport returns it (duration fixed so files compare byte for byte)."""
    return CommandResult(node, command, stdout, stderr, exit_code, 0.25)


def record_many(directory: str, run_id: str, worker: int, count: int, payload_lines: int) -> None:
    """Record ``count`` episodes on node01 as worker ``worker``: a command of its own and a shared one,
    alternately (a process target for the concurrency tests)."""
    store = RecordingStore(directory, run_id=run_id)
    for number in range(count):
        command = f"cat /sys/class/net/eth{worker}/statistics/rx_bytes" if number % 2 else "uptime"
        stdout = "".join(f"w{worker} n{number} line {line}\n" for line in range(payload_lines))
        store.add(result("node01", command, stdout), item=f"test_w{worker}[{number}]")


def record_forever(directory: str, run_id: str, payload_lines: int) -> None:
    """Record episodes until killed (a process target for the atomicity test)."""
    store = RecordingStore(directory, run_id=run_id)
    number = 0
    while True:
        stdout = "".join(f"episode {number} line {line}\tvalue {line * number}\n" for line in range(payload_lines))
        store.add(result("node01", f"ethtool -S eth{number % 7}", stdout), item=f"test_stats[{number}]")
        number += 1


def files_under(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if path.is_file())


def record_then_hang_mid_write(directory: str, run_id: str, hanging: Event) -> None:
    """Record three episodes, then start a fourth and stop for good inside its write: after the
    temporary file is written and before it replaces the node file (a process target: the test
    kills it there)."""
    store = RecordingStore(directory, run_id=run_id)
    for number in range(3):
        store.add(result("node01", "uptime", f"up {number}\n"), item=f"test_up[{number}]")

    def hang(fd: object) -> None:
        hanging.set()
        while True:
            time.sleep(1)

    os.fsync = hang  # this process only; the kill ends it
    store.add(result("node01", "uptime", "never stored\n"), item="test_up[3]")
