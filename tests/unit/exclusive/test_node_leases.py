"""Node-side leases and PID files of traffic commands, run by a real bash as the transports run them (inside their
``timeout``), in a state folder of the test's own (``/run`` stays untouched)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_gpufabric.exclusive.leases import (
    LEASE_BUSY_EXIT,
    LeaseBusy,
    NodeGuard,
    busy_line,
    STATE_ENV,
    holder_line,
    lease_error,
    stop_command,
)
from pytest_gpufabric.transport.bounded import bounded_command

RUN_A, RUN_B = "20261127-101500-aaaaaa", "20261127-101501-bbbbbb"  # run ids as signoff.runs makes them
NIC = "nic:node01/bnxt_re0"


def guard(run_id: str, *resources: str) -> NodeGuard:
    return NodeGuard(run_id, holder_line(run_id, "controller-host", 4242), resources or (NIC,))


class Node:
    """A node's shell, its lease state in a folder of the test's own (``GPUFABRIC_NODE_STATE``)."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.started: list[subprocess.Popen[str]] = []

    def script(self, command: str, timeout_s: float, run_guard: NodeGuard | None) -> str:
        return f"export {STATE_ENV}={self.state}\n{bounded_command(command, timeout_s, guard=run_guard)}"

    def start(self, command: str, run_guard: NodeGuard | None = None, timeout_s: float = 20) -> subprocess.Popen[str]:
        process = subprocess.Popen(["bash", "-c", self.script(command, timeout_s, run_guard)], text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.started.append(process)
        return process

    def run(self, command: str, run_guard: NodeGuard | None = None, timeout_s: float = 20) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", self.script(command, timeout_s, run_guard)], capture_output=True, text=True,
                              timeout=timeout_s + 10, check=False)

    def pid_files(self) -> list[str]:
        folder = self.state / "pids"
        return sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    shell = Node(tmp_path / "state")
    yield shell
    for process in shell.started:  # each started by this test in a session of its own: its whole group ends
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)


def wait_for_pid_file(node: Node) -> None:
    deadline = time.monotonic() + 10
    while not node.pid_files() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert node.pid_files(), "the guarded command wrote no PID file"


def test_a_second_run_is_refused_with_a_line_naming_the_holder_and_the_same_run_shares_its_lease(node: Node) -> None:
    holding = node.start("sleep 30", guard(RUN_A, NIC, "gpu:node01/0"))
    wait_for_pid_file(node)
    same_run = node.run("echo measured", guard(RUN_A))
    assert (same_run.returncode, same_run.stdout) == (0, "measured\n")
    other = node.run("echo measured", guard(RUN_B))
    line = busy_line(other.returncode, other.stdout)
    assert other.returncode == LEASE_BUSY_EXIT and "measured" not in other.stdout
    assert line is not None and line.endswith(f"{NIC} on {node_hostname()} is in use by run {RUN_A} (controller controller-host pid 4242)")
    assert isinstance(lease_error("node01", line), LeaseBusy)
    other_resource = node.run("echo measured", guard(RUN_B, "nic:node01/bnxt_re1"))
    assert other_resource.stdout == "measured\n"  # another NIC of the node is free
    assert holding.poll() is None


def test_the_stop_ends_the_runs_commands_by_their_pid_files_and_frees_the_lease(node: Node) -> None:
    server = node.start("sleep 30 & wait", guard(RUN_A))
    other_run = node.start("sleep 30", guard(RUN_B, "nic:node01/bnxt_re1"))
    wait_for_pid_file(node)
    while len(node.pid_files()) < 2:
        time.sleep(0.02)
    started = time.monotonic()
    stopped = node.run(stop_command(RUN_A))
    assert stopped.stdout.strip() == "stopped 1"
    assert server.wait(timeout=5) != 0 and time.monotonic() - started < 5
    assert other_run.poll() is None  # another run's command is not touched
    assert [name for name in node.pid_files() if name.startswith(RUN_A)] == []
    assert node.run("echo measured", guard(RUN_B)).stdout == "measured\n"  # the leftover lease was removed


def test_a_stale_pid_file_never_signals_a_process_of_another_run(node: Node) -> None:
    bystander = node.start("sleep 30")  # no guard: not a traffic command of any run
    (node.state / "pids").mkdir(parents=True)
    (node.state / "pids" / f"{RUN_A}.{bystander.pid}").write_text(f"{bystander.pid}\n")  # a reused PID
    assert node.run(stop_command(RUN_A)).stdout.strip() == "stopped 0"
    assert bystander.poll() is None


def test_the_bound_ends_a_guarded_command_and_its_lease(node: Node) -> None:
    started = time.monotonic()
    bounded = node.run("sleep 30", guard(RUN_A), timeout_s=1)
    assert bounded.returncode == 124 and time.monotonic() - started < 8
    assert node.run("echo measured", guard(RUN_B)).stdout == "measured\n"


def test_a_run_id_that_could_reach_a_shell_is_refused() -> None:
    with pytest.raises(ValueError):
        NodeGuard("abc; rm -rf /", "x", (NIC,))
    with pytest.raises(ValueError):
        stop_command("$(reboot)")
    with pytest.raises(ValueError):
        stop_command("-rf-000001")


def node_hostname() -> str:
    return subprocess.run(["bash", "-c", "echo $HOSTNAME"], capture_output=True, text=True, check=True).stdout.strip()
