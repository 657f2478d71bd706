"""A node that fails transport operations in a row is marked down for the run: its later commands and items are
refused at once with the first cause, in every process; a replay's missing command never marks a node down; a
traffic command of an item holding resources runs with its node's guard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.errors import RecordingError, TransportError
from pytest_gpufabric.exclusive.down import DownMarks, NodeHealth
from pytest_gpufabric.exclusive.leases import NodeGuard
from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.session import FabricSession
from pytest_gpufabric.transport.base import CommandResult


class Flaky:
    """A transport whose nodes fail as told; it counts what reached it."""

    def __init__(self) -> None:
        self.failing: dict[str, type[TransportError]] = {}
        self.calls: list[tuple[str, str, NodeGuard | None]] = []

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None,
            guard: NodeGuard | None = None) -> CommandResult:
        self.calls.append((node, command, guard))
        if node in self.failing:
            raise self.failing[node](node, "connection lost: the channel closed")
        return CommandResult(node, command, "ok\n", "", 0, 0.0)

    def connect(self, node: str) -> None:
        self.run(node, "connect", 1)

    def close(self) -> None:
        pass


def _session(inventory: Inventory, folder: Path, transport: Flaky) -> FabricSession:
    session = FabricSession(inventory, {}, None, lambda: transport)  # type: ignore[arg-type]
    session.health = NodeHealth(DownMarks(folder), down_after=3)
    return session


def test_failures_in_a_row_mark_a_node_down_for_every_process_of_the_run(demo_inventory: Inventory, tmp_path: Path) -> None:
    transport = Flaky()
    first, other_process = _session(demo_inventory, tmp_path, transport), _session(demo_inventory, tmp_path, Flaky())
    transport.failing["node03"] = TransportError
    for _ in range(3):
        with pytest.raises(TransportError, match="connection lost"):
            first.run("node03", "uptime", 5, False, "t")
    reached = len(transport.calls)
    with pytest.raises(TransportError, match="node03: marked down for the rest of the run: connection lost: the channel closed"):
        first.run("node03", "uptime", 5, False, "t")
    assert len(transport.calls) == reached  # refused before the transport
    with pytest.raises(TransportError, match="marked down"):
        other_process.connect("node03")
    assert first.run("node01", "uptime", 5, False, "t").stdout == "ok\n"


def test_a_replay_without_the_command_never_marks_a_node_down(demo_inventory: Inventory, tmp_path: Path) -> None:
    transport = Flaky()
    session = _session(demo_inventory, tmp_path, transport)
    transport.failing["node02"] = RecordingError
    for _ in range(5):
        with pytest.raises(RecordingError):
            session.run("node02", "uptime", 5, False, "t")
    assert session.health is not None and session.health.marks.cause("node02") is None


def test_commands_of_an_item_holding_resources_run_with_their_nodes_guard(demo_inventory: Inventory, tmp_path: Path) -> None:
    transport = Flaky()
    session = _session(demo_inventory, tmp_path, transport)
    session.guard_of = lambda node, resources: NodeGuard("abcdef123456", "run", tuple(r for r in resources if f":{node}/" in r))
    session.held["coll[cluster]"] = ("nic:node01/bnxt_re0", "nic:node02/bnxt_re0")
    session.run("node01", "all_reduce_perf", 5, False, "coll[cluster]")
    session.run("node01", "uname -r", 5, False, "host[node01]")
    guards: list[Any] = [guard for _, _, guard in transport.calls]
    assert guards[0].resources == ("nic:node01/bnxt_re0",) and guards[1] is None
