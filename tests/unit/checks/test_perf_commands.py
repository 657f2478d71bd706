"""Perftest command builders, port assignment and the orchestration sequence (server once listening, client, stop)."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_gpufabric.checks.perf import PerftestLeg, bandwidth_judgements, run_leg
from pytest_gpufabric.checks.perf_commands import (
    BW_FLAGS,
    PerftestEnd,
    client_command,
    first_core,
    gpu_flag,
    log_path,
    parse_pid,
    port_for,
    running,
    server_command,
    stop_command,
)
from pytest_gpufabric.errors import MeasurementMissing, UsageError
from pytest_gpufabric.transport.base import CommandResult
from tests.outputs import read_output

GOOD = read_output("perftest", "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt")
STATUS_12 = read_output("perftest", "s0-5.1-faq2-ib_write_bw-failed-status-12.txt")
PORT_CLASH_SERVER = read_output("perftest", "rxe-ib_write_bw-port-clash-server.txt")
NO_SERVER = read_output("perftest", "rxe-ib_write_bw-no-server.txt")
NO_DEVICE = read_output("perftest", "rxe-ib_write_bw-no-such-device.txt")
GID_MISSING = read_output("perftest", "rxe-ib_write_bw-gid-index-3-missing.txt")
LEG = PerftestLeg("n2/bnxt_re0->n1/bnxt_re0", "a-serves", "ib_write_bw", "n1", PerftestEnd("bnxt_re0", "192.168.1.1", "--use_rocm=0"),
                  "n2", PerftestEnd("bnxt_re0", "192.168.1.2", "--use_rocm=0"), port_for(0), BW_FLAGS)


class ScriptedRunner:
    """Answers commands by their first matching substring; records every command run."""

    def __init__(self, answers: dict[str, tuple[str, int]]) -> None:
        self.answers = answers
        self.ran: list[tuple[str, str]] = []

    def run(self, node: str, command: str, *, timeout_s: float | None = None, cached: bool = False) -> CommandResult:
        self.ran.append((node, command))
        for key, (stdout, code) in self.answers.items():
            if key in command:
                return CommandResult(node, command, stdout, "", code, 0.0)
        return CommandResult(node, command, "", "", 0, 0.0)


def test_server_runs_in_background_bounded_with_documented_flags() -> None:
    command = server_command("ib_write_bw", LEG.server, 18516, "/tmp/x.log")
    assert command.startswith("timeout --kill-after=5 300 ib_write_bw -x 3 -a -b -F --report_gbits -d bnxt_re0 -p 18516 --use_rocm=0")
    assert "< /dev/null > /tmp/x.log 2>&1 & pid=$!; echo $pid; " in command and command.endswith("exit 124")
    assert "ss -Hltn 'sport = :18516'" in command and "sleep 0.02" in command  # readiness polled on the node


def test_client_binds_its_source_address_and_names_the_server() -> None:
    command = client_command("ib_write_bw", LEG.client, "192.168.1.1", 18516)
    assert "--bind_source_ip=192.168.1.2 192.168.1.1" in command and command.startswith("timeout ")


def test_ports_differ_per_rail_and_offset() -> None:
    ports = {port_for(rail, offset) for rail in range(8) for offset in range(3)}
    assert len(ports) == 24 and min(ports) == 18516
    with pytest.raises(UsageError):
        port_for(-1)


def test_log_names_are_deterministic_and_shell_safe() -> None:
    assert log_path("PERF-002", "n1/bnxt_re0->n2/bnxt_re0", "a-serves") == "/tmp/gpufabric-PERF-002-n1_bnxt_re0-_n2_bnxt_re0-a-serves.log"


def test_gpu_flags_per_vendor() -> None:
    assert gpu_flag("amd", 3) == "--use_rocm=3" and gpu_flag("nvidia", 1) == "--use_cuda=1"
    with pytest.raises(UsageError):
        gpu_flag("intel", 0)


def test_pid_and_cpulist_parsing() -> None:
    assert parse_pid("12345\n") == 12345 and parse_pid("bash: error\n") is None and parse_pid("") is None
    assert first_core("48-95,144-191\n") == 48 and first_core("garbage") is None
    stop = stop_command(77, "/tmp/x.log")
    assert "< /proc/77/stat" in stop and "cat /tmp/x.log" in stop and "kill 77 " in stop and "rm -f /tmp/x.log" in stop


def _answers(client: str, ready: int = 0) -> dict[str, tuple[str, int]]:
    return {"echo $pid": ("4242\n", ready), "--bind_source_ip": (client, 0), "/proc/4242/stat": (GOOD, 0)}


def test_leg_runs_server_until_listening_client_then_stop() -> None:
    runner = ScriptedRunner(_answers(GOOD))
    outcome = run_leg(runner, "PERF-003", "t", LEG)
    steps = [(node, command.split()[0]) for node, command in runner.ran]
    assert steps == [("n1", "timeout"), ("n2", "timeout"), ("n1", "for")]  # three SSH commands per run
    assert outcome.server_log == GOOD
    assert bandwidth_judgements(outcome)[0][:2] == ("average_bw_gbps", 774.99)


def test_wrong_gid_index_is_a_failed_run_not_a_setup_error() -> None:
    outcome = run_leg(ScriptedRunner(_answers(GID_MISSING)), "PERF-002", "t", LEG)
    with pytest.raises(MeasurementMissing, match="Failed to modify QP 32 to RTR"):
        bandwidth_judgements(outcome)


def test_status_12_is_judged_not_an_error() -> None:
    outcome = run_leg(ScriptedRunner(_answers(STATUS_12)), "PERF-002", "t", LEG)
    assert bandwidth_judgements(outcome)[0][:2] == ("completion_errors", 1)


@pytest.mark.parametrize("answers, message", [
    (lambda: _answers(GOOD, ready=124), "did not listen in time on port 18516"),
    (lambda: {**_answers(GOOD, ready=3), "/proc/4242/stat": (PORT_CLASH_SERVER, 0)},
     "ended before listening on port 18516 (port clash): Couldn't listen to port 18600"),
    (lambda: {**_answers(GOOD), "echo $pid": ("", 1)}, "did not start"),
    (lambda: _answers(NO_SERVER), "could not run (connection): Couldn't connect to 10.77.0.2:18601"),
    (lambda: _answers(NO_DEVICE), "could not run (no_device): IB device bnxt_re0 not found"),
])
def test_setup_failures_are_errors_and_server_is_cleaned(answers: Callable[[], dict[str, tuple[str, int]]], message: str) -> None:
    runner = ScriptedRunner(answers())
    with pytest.raises(MeasurementMissing, match=re.escape(message)):
        run_leg(runner, "PERF-002", "t", LEG)
    started = "did not start" not in message
    assert any("kill 4242" in command for _, command in runner.ran) == started


def test_an_ended_server_is_seen_ended_even_before_it_is_reaped() -> None:
    """The stop's and the readiness' `running` test in a real bash: a live process, a zombie, a gone PID."""
    alive = subprocess.Popen(["sleep", "30"])
    zombie = subprocess.Popen(["true"])
    try:
        deadline = time.monotonic() + 10
        while Path(f"/proc/{zombie.pid}/stat").read_text().split()[2] != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        answers = {pid: subprocess.run(["bash", "-c", f"{running(str(pid))} && echo running || echo ended"], capture_output=True,
                                       text=True, check=True, timeout=10).stdout.strip() for pid in (alive.pid, zombie.pid)}
    finally:
        alive.kill()
        alive.wait()
        zombie.wait()
    gone = subprocess.run(["bash", "-c", f"{running(str(zombie.pid))} && echo running || echo ended"], capture_output=True,
                          text=True, check=True, timeout=10).stdout.strip()
    assert (answers[alive.pid], answers[zombie.pid], gone) == ("running", "ended", "ended")
