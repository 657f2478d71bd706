"""The perftest runs of a node pair (every rail at once, one command per node and step) within their bound, and
the node script runner those commands use, in a real bash: what a time limit or a stop leaves of their output."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from pytest_gpufabric.checks.node_scripts import runner
from pytest_gpufabric.checks.perf import PerftestLeg, run_node_pair_legs
from pytest_gpufabric.checks.perf_commands import BW_FLAGS, PerftestEnd
from pytest_gpufabric.errors import MeasurementMissing, Unreachable
from pytest_gpufabric.exclusive.names import port_for
from pytest_gpufabric.parsers.sections import frame, parse_sections
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.beside import STOPPED_EXIT
from tests.outputs import read_output
from tests.unit.checks.test_perf_commands import ScriptedRunner

GOOD = read_output("perftest", "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt")


def _legs(rail: int) -> list[PerftestLeg]:
    """Rail ``rail`` of node pair n1-n2 both ways: n1's client to n2's server, then roles swapped."""
    one, two = PerftestEnd(f"bnxt_re{rail}", f"192.168.{rail + 1}.1"), PerftestEnd(f"bnxt_re{rail}", f"192.168.{rail + 1}.2")
    return [PerftestLeg(f"n1/bnxt_re{rail}->n2/bnxt_re{rail}", "a-serves", "ib_write_bw", "n2", two, "n1", one, port_for(rail), BW_FLAGS),
            PerftestLeg(f"n2/bnxt_re{rail}->n1/bnxt_re{rail}", "b-serves", "ib_write_bw", "n1", one, "n2", two, port_for(rail), BW_FLAGS)]


class _NodePairRunner(ScriptedRunner):
    """Servers end with their clients; the first clients command (n1's) prints rail 0's client alone and ends by
    its time limit (rail 1's client was still waiting for its NICs)."""

    def _run(self, node: str, command: str, timeout_s: float | None, cached: bool) -> CommandResult:
        labels = re.findall(r"^(?:serve|job) '((?:server|client) \S+)'", command, re.MULTILINE)
        if labels and labels[0].startswith("server"):
            return CommandResult(node, command, "".join(frame(label, 0, GOOD.splitlines()) for label in labels), "", 0, 0.0)
        if labels == ["client n1/bnxt_re0->n2/bnxt_re0", "client n1/bnxt_re1->n2/bnxt_re1"]:
            return CommandResult(node, command, frame(labels[0], 0, GOOD.splitlines()), "", 124, 5.0)
        return CommandResult(node, command, "", "", 0, 0.0)


def test_a_clients_command_its_bound_ended_ends_the_node_pairs_run() -> None:
    runner = _NodePairRunner({})
    found = run_node_pair_legs(runner, "PERF-002", [("rail0", _legs(0)), ("rail1", _legs(1))])
    assert isinstance(found["rail1"], Unreachable)
    assert "perftest client on n1 did not end within its time limit (exit 124)" in str(found["rail1"])
    assert isinstance(found["rail0"], MeasurementMissing) and not isinstance(found["rail0"], Unreachable)
    assert "n2/bnxt_re0->n1/bnxt_re0: perftest client not run: the clients on n1 before it" in str(found["rail0"])
    clients = [result for result in runner.commands if "job 'client" in result.command]
    assert [result.node for result in clients] == ["n1"]  # n2's clients (the other direction) were not run


def _script(body: str) -> str:
    """A node script: a stand-in guard's EXIT function, the runner, where it keeps its scratch, then ``body``."""
    return "\n".join(["_gf_exit() { echo guard-exit >&2; }", runner(4), 'echo "scratch $d" >&2', body])


def _scratch(stderr: str) -> Path:
    return Path(next(line.split(" ", 1)[1] for line in stderr.splitlines() if line.startswith("scratch ")))


def test_a_script_that_ends_prints_every_section_and_runs_its_guards_exit() -> None:
    done = subprocess.run(["bash", "-c", _script("job 'a x' -- echo one\njob 'b y' -- false\nsections")],
                          capture_output=True, text=True, timeout=30, check=False)
    assert [(s.label, s.exit_code, s.lines) for s in parse_sections(done.stdout).sections] == [
        (("a", "x"), 0, ("one",)), (("b", "y"), 1, ())]
    assert done.returncode == 0 and "guard-exit" in done.stderr and not _scratch(done.stderr).exists()


@pytest.mark.parametrize("signal", ["time limit", "stop"])
def test_a_script_ended_by_sigterm_prints_the_programs_that_had_ended_whole(signal: str) -> None:
    body = "job 'a x' -- echo one\njob 'b y' -- sleep 30\nsections"
    if signal == "time limit":  # as the transport bounds a command: `timeout` signals the whole group
        done = subprocess.run(["timeout", "--kill-after=5s", "3s", "bash", "-c", _script(body)],
                              capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 124
    else:  # as a stop by PID file: SIGTERM to the script's process group, once its first program has ended
        started = subprocess.Popen(["bash", "-c", _script(body)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, start_new_session=True)
        assert started.stderr is not None
        first = _scratch(started.stderr.readline()) / "0.rc"
        deadline = time.monotonic() + 20
        while not first.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        subprocess.run(["kill", "-TERM", "--", f"-{started.pid}"], check=True)
        out, err = started.communicate(timeout=30)
        done = subprocess.CompletedProcess(started.args, started.returncode, out, "scratch " + str(first.parent) + "\n" + err)
        assert done.returncode == STOPPED_EXIT
    found = parse_sections(done.stdout)
    assert [(s.label, s.exit_code, s.lines) for s in found.sections] == [(("a", "x"), 0, ("one",))] and found.unread == ()
    assert "guard-exit" in done.stderr and not _scratch(done.stderr).exists()
