"""The commands of the perftest runs of a node pair (all its rails together, ``checks.perf.run_node_pair_legs``)
and what each node printed: the plugin's own orchestration is run against a recorder that answers every server
and client of a command with its demo output, framed as the node script frames it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pytest_gpufabric.checks.perf import PairLegs, PerftestLeg, run_node_pair_legs
from pytest_gpufabric.parsers.sections import frame
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.beside import BesideResults, Call, StopAfter
from tools.demo_cluster.outputs import Outputs

PROGRAM = re.compile(r"^(?:serve|job) '(server|client) (\S+)'", re.MULTILINE)
Output = Callable[[PerftestLeg], "tuple[str, int]"]


class _Recorder:
    """Answers each command with the framed outputs of the programs it starts; keeps every command by node."""

    def __init__(self, legs: dict[str, PerftestLeg], server: Output, client: Output) -> None:
        self._legs = legs
        self._outputs = {"server": server, "client": client}
        self.recorded: dict[str, Outputs] = {}

    def _answer(self, call: Call) -> CommandResult:
        node, command, _ = call
        text = ""
        for role, label in PROGRAM.findall(command):
            output, code = self._outputs[role](self._legs[label])
            text += frame(f"{role} {label}", code, output.splitlines())
        self.recorded.setdefault(node, {})[command] = (text, 0)
        return CommandResult(node, command, text, "", 0, 0.0)

    def run(self, node: str, command: str, *, timeout_s: float | None = None, cached: bool = False) -> CommandResult:
        raise AssertionError(f"the node-pair runs send no single command: {command[:80]}")

    def run_beside(self, backgrounds: Sequence[Call], foregrounds: Sequence[Call], stops: Sequence[Call],
                   grace_s: float, stop_after: StopAfter | None = None) -> BesideResults:
        return BesideResults(tuple(map(self._answer, backgrounds)), tuple(map(self._answer, foregrounds)),
                             tuple(None for _ in stops))


def node_pair_outputs(check_id: str, pairs: Sequence[PairLegs], server: Output, client: Output) -> dict[str, Outputs]:
    """Node -> the commands of the node pair's runs on it and their outputs (servers end with their clients)."""
    recorder = _Recorder({leg.label: leg for _, legs in pairs for leg in legs}, server, client)
    run_node_pair_legs(recorder, check_id, pairs)
    return recorder.recorded
