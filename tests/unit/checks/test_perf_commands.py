"""Perftest command builders, port assignment and the orchestration (server and client side by side, stop)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_gpufabric.checks.perf import PerftestLeg, bandwidth_judgements, run_leg, run_legs
from pytest_gpufabric.checks.perf_commands import (
    BW_FLAGS,
    PerftestEnd,
    client_command,
    first_core,
    gpu_flag,
    log_path,
    pid_path,
    server_command,
    stop_command,
)
from pytest_gpufabric.errors import MeasurementMissing, Unreachable, UsageError
from pytest_gpufabric.evidence_runner import EvidenceRunner
from pytest_gpufabric.exclusive.names import port_for
from pytest_gpufabric.lab.perftest_standin import SCRIPT as STANDIN
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.beside import STOPPED_EXIT
from tests.outputs import read_output

GOOD = read_output("perftest", "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt")
STATUS_12 = read_output("perftest", "s0-5.1-faq2-ib_write_bw-failed-status-12.txt")
PORT_CLASH_SERVER = read_output("perftest", "rxe-ib_write_bw-port-clash-server.txt")
NO_SERVER = read_output("perftest", "rxe-ib_write_bw-no-server.txt")
NO_DEVICE = read_output("perftest", "rxe-ib_write_bw-no-such-device.txt")
GID_MISSING = read_output("perftest", "rxe-ib_write_bw-gid-index-3-missing.txt")
LEG = PerftestLeg("n2/bnxt_re0->n1/bnxt_re0", "a-serves", "ib_write_bw", "n1", PerftestEnd("bnxt_re0", "192.168.1.1", "--use_rocm=0"),
                  "n2", PerftestEnd("bnxt_re0", "192.168.1.2", "--use_rocm=0"), port_for(0), BW_FLAGS)


@dataclass
class ScriptedRunner(EvidenceRunner):
    """Answers each command by its first matching substring (else empty, exit 0), as a replay does: at once."""

    answers: dict[str, tuple[str, int]]
    commands: list[CommandResult] = field(default_factory=list)

    def _run(self, node: str, command: str, timeout_s: float | None, cached: bool) -> CommandResult:
        stdout, code = next((answer for key, answer in self.answers.items() if key in command), ("", 0))
        return CommandResult(node, command, stdout, "", code, 0.0)


def test_server_runs_in_the_foreground_bounded_with_documented_flags() -> None:
    command = server_command("ib_write_bw", LEG.server, 18516, "/tmp/x.pid")
    assert command.startswith("ib_write_bw -x 3 -a -b -F --report_gbits -d bnxt_re0 -p 18516 --use_rocm=0 < /dev/null")
    assert command.endswith(" < /dev/null 2>&1 & echo $! > /tmp/x.pid; wait $!; rc=$?; rm -f /tmp/x.pid; exit $rc")


def test_client_binds_its_source_address_and_retries_a_server_not_listening_yet() -> None:
    command = client_command("ib_write_bw", LEG.client, "192.168.1.1", 18516)
    assert "--bind_source_ip=192.168.1.2 192.168.1.1 2>&1)" in command and "out=$(ib_write_bw -x 3 " in command
    assert "case $out in *\"Couldn't connect\"*) ;; *) break;; esac; [ $w -lt 10000 ] || break; sleep $p; w=$((w + m));" in command
    assert command.startswith("p=0.05 m=50 w=0; ") and "0.05) p=0.1 m=100;; 0.1) p=0.2 m=200;;" in command  # doubling, 10 s at most


def test_ports_differ_per_rail_and_offset() -> None:
    ports = {port_for(rail, offset) for rail in range(8) for offset in range(3)}
    assert len(ports) == 24 and min(ports) == 18516
    with pytest.raises(UsageError):
        port_for(-1)


def test_file_names_are_deterministic_and_shell_safe() -> None:
    assert log_path("PERF-002", "n1/bnxt_re0->n2/bnxt_re0", "a-serves") == "/tmp/gpufabric-PERF-002-n1_bnxt_re0-_n2_bnxt_re0-a-serves.log"
    assert pid_path("PERF-002", "n1/bnxt_re0->n2/bnxt_re0", "a-serves") == "/tmp/gpufabric-PERF-002-n1_bnxt_re0-_n2_bnxt_re0-a-serves.pid"


def test_gpu_flags_per_vendor() -> None:
    assert gpu_flag("amd", 3) == "--use_rocm=3" and gpu_flag("nvidia", 1) == "--use_cuda=1"
    with pytest.raises(UsageError):
        gpu_flag("intel", 0)


def test_cpulist_parsing_and_stop_by_pid_file() -> None:
    assert first_core("48-95,144-191\n") == 48 and first_core("garbage") is None
    assert stop_command("/tmp/x.pid") == '{ read -r pid < /tmp/x.pid && kill "$pid"; } 2>/dev/null; true'


def _answers(client: str, server: str = GOOD, server_exit: int = 0) -> dict[str, tuple[str, int]]:
    return {"--bind_source_ip": (client, 0), "echo $!": (server, server_exit)}


def test_leg_runs_server_and_client_side_by_side() -> None:
    runner = ScriptedRunner(_answers(GOOD))
    outcome = run_leg(runner, "PERF-003", "t", LEG)
    assert [(result.node, result.command.split()[0]) for result in runner.commands] == [("n1", "ib_write_bw"), ("n2", "p=0.05")]
    assert outcome.server_log == GOOD  # two SSH commands per run
    assert bandwidth_judgements(outcome)[0][:2] == ("average_bw_gbps", 774.99)


def test_both_ways_start_both_servers_then_run_the_clients_in_turn() -> None:
    # The second leg's server listens while the first leg runs (another node): its client finds it ready.
    back = PerftestLeg("n1/bnxt_re0->n2/bnxt_re0", "b-serves", "ib_write_bw", "n2", LEG.client, "n1", LEG.server, LEG.port, BW_FLAGS)
    runner = ScriptedRunner(_answers(GOOD))
    outcomes = run_legs(runner, "PERF-002", "t", [LEG, back])
    assert [(result.node, result.command.split()[0]) for result in runner.commands] == [
        ("n1", "ib_write_bw"), ("n2", "ib_write_bw"), ("n2", "p=0.05"), ("n1", "p=0.05")]
    assert [outcome.leg.role for outcome in outcomes] == ["a-serves", "b-serves"]


def test_legs_whose_servers_share_a_port_run_one_after_the_other() -> None:
    again = PerftestLeg("n2/bnxt_re0->n1/bnxt_re0", "again", "ib_write_bw", "n1", LEG.server, "n2", LEG.client, LEG.port, BW_FLAGS)
    runner = ScriptedRunner(_answers(GOOD))
    run_legs(runner, "PERF-005", "t", [LEG, again])
    assert [result.command.split()[0] for result in runner.commands] == ["ib_write_bw", "p=0.05", "ib_write_bw", "p=0.05"]


def test_wrong_gid_index_is_a_failed_run_not_a_setup_error() -> None:
    outcome = run_leg(ScriptedRunner(_answers(GID_MISSING)), "PERF-002", "t", LEG)
    with pytest.raises(MeasurementMissing, match="Failed to modify QP 32 to RTR"):
        bandwidth_judgements(outcome)


def test_status_12_is_judged_not_an_error() -> None:
    outcome = run_leg(ScriptedRunner(_answers(STATUS_12)), "PERF-002", "t", LEG)
    assert bandwidth_judgements(outcome)[0][:2] == ("completion_errors", 1)


@pytest.mark.parametrize("answers, message, stopped", [
    (_answers(NO_SERVER, "", STOPPED_EXIT), "could not run (connection): Couldn't connect to 10.77.0.2:18601", True),
    (_answers(NO_SERVER, PORT_CLASH_SERVER, 1),
     "server on n1 ended before its client connected on port 18516 (exit 1) (port clash): Couldn't listen to port 18600", False),
    (_answers(NO_SERVER, "bash: line 1: ib_write_bw: command not found\n", 127),
     "ended before its client connected on port 18516 (exit 127): bash: line 1: ib_write_bw: command not found", False),
    (_answers(NO_DEVICE, "", STOPPED_EXIT), "could not run (no_device): IB device bnxt_re0 not found", True),
])
def test_setup_failures_are_errors_and_a_running_server_is_stopped(answers: dict[str, tuple[str, int]], message: str,
                                                                    stopped: bool) -> None:
    runner = ScriptedRunner(answers)
    with pytest.raises(MeasurementMissing, match=re.escape(message)):
        run_leg(runner, "PERF-002", "t", LEG)
    assert any(result.command.startswith("{ read -r pid < /tmp/gpufabric-PERF-002-t-a-serves.pid") for result in runner.commands) == stopped


def test_a_client_its_time_limit_ended_means_the_nics_could_not_exchange_traffic_and_the_next_leg_is_not_run() -> None:
    back = PerftestLeg("n1/bnxt_re0->n2/bnxt_re0", "b-serves", "ib_write_bw", "n2", LEG.client, "n1", LEG.server, LEG.port, BW_FLAGS)
    runner = ScriptedRunner({"--bind_source_ip": ("", 124), "echo $!": ("", STOPPED_EXIT)})
    with pytest.raises(Unreachable, match="perftest client on n2 did not end within its time limit .exit 124."):
        run_legs(runner, "PERF-002", "t", [LEG, back])
    assert [result.command.split()[0] for result in runner.commands].count("p=0.05") == 1  # the second client: not run


def test_a_client_that_waited_for_a_failed_server_names_the_servers_words() -> None:
    runner = ScriptedRunner({"--bind_source_ip": ("", 124), "echo $!": (PORT_CLASH_SERVER, 1)})
    with pytest.raises(MeasurementMissing, match="ended before its client connected .* .port clash.: Couldn't listen") as caught:
        run_leg(runner, "PERF-002", "t", LEG)
    assert not isinstance(caught.value, Unreachable)


@pytest.fixture
def standin_node(tmp_path: Path) -> dict[str, str]:
    """A shell environment with the lab's perftest stand-in as ``ib_write_bw`` (the lab installs it the same way)."""
    for tool in ("nc", "grep"):
        assert shutil.which(tool), f"{tool} missing: tools/install-system-deps.sh installs it"
    home = tmp_path / "home"
    (home / "perftest-standin" / "captures").mkdir(parents=True)
    (home / "perftest-standin" / "captures" / "healthy.txt").write_text(GOOD)
    (home / "perftest-standin" / "run-s").write_text("0.2\n")
    (home / "perftest-standin" / "bad-servers").write_text("")
    (tmp_path / "bin").mkdir()
    shutil.copy(STANDIN, tmp_path / "bin" / "ib_write_bw")
    return {**os.environ, "HOME": str(home), "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}


def _bash(command: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(["bash", "-c", command], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_commands_in_a_real_shell_client_first_then_its_server(standin_node: dict[str, str], tmp_path: Path) -> None:
    # The client starts before its server listens (as two SSH commands may): it tries again until it connects.
    loopback = PerftestEnd("lo", "127.0.0.1")
    port, pid_file = 18950 + os.getpid() % 40, str(tmp_path / "server.pid")
    client = _bash(client_command("ib_write_bw", loopback, "127.0.0.1", port), standin_node)
    time.sleep(0.3)
    server = _bash(server_command("ib_write_bw", loopback, port, pid_file), standin_node)
    client_out, _ = client.communicate(timeout=30)
    server_out, _ = server.communicate(timeout=30)
    assert (client.returncode, server.returncode) == (0, 0)
    assert client_out == GOOD and server_out == GOOD and not Path(pid_file).exists()


def test_stop_ends_a_server_whose_client_never_came(standin_node: dict[str, str], tmp_path: Path) -> None:
    loopback = PerftestEnd("lo", "127.0.0.1")
    port, pid_file = 18990 + os.getpid() % 40, tmp_path / "server.pid"
    server = _bash(server_command("ib_write_bw", loopback, port, str(pid_file)), standin_node)
    deadline = time.monotonic() + 10
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    stop = subprocess.run(["bash", "-c", stop_command(str(pid_file))], env=standin_node, check=False, timeout=10)
    server.communicate(timeout=30)
    assert (stop.returncode, server.returncode) == (0, STOPPED_EXIT)  # a server ended by SIGTERM: the beside rule
    assert not pid_file.exists()
