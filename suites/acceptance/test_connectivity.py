"""Connectivity between nodes: ping mesh, jumbo frames end to end, passwordless SSH (NET-001, NET-002, HOST-008)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.connectivity import (
    describe,
    jumbo_ping_command,
    loss_percent,
    nic_addresses,
    ping_command,
    ssh_probe_command,
)
from pytest_gpufabric.context import CheckContext, parse_output
from pytest_gpufabric.measuring.rails import RailRunner
from pytest_gpufabric.parsers.ping import parse_ping
from pytest_gpufabric.parsers.reading import facts_of
from pytest_gpufabric.targets import NicPairTarget, NodePairTarget
from pytest_gpufabric.verdict import Judged


@pytest.mark.check("NET-001")
def test_ping_mesh(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    values = []
    for source in nic_addresses(node_pair.a):
        for destination in nic_addresses(node_pair.b):
            result = gpufabric.parse(parse_ping, gpufabric.run(node_pair.a.name, ping_command(source.address, destination.address)))
            where = f"{source.name} ({source.address}) -> {destination.name} ({destination.address})"
            values.append(("loss_percent", loss_percent(result), where, describe(result)))
    gpufabric.expect_each(values)


@pytest.mark.check("NET-002")
def test_jumbo_frames(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    def measure(runner: RailRunner, pair: NicPairTarget) -> list[Judged]:
        source, destination = str(pair.nic_a.address), str(pair.nic_b.address)
        result = facts_of(parse_output(parse_ping, runner.run(pair.node_a.name, jumbo_ping_command(source, destination))))
        return [("loss_percent", loss_percent(result), f"{pair.id} ({source} -> {destination}, 8972 bytes, DF)", describe(result))]
    gpufabric.expect_rails(gpufabric.measure_rails(measure), lambda values: values)


@pytest.mark.check("HOST-008")
def test_passwordless_ssh(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    result = gpufabric.run(node_pair.a.name, ssh_probe_command(node_pair.b.address))
    detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
    gpufabric.expect("exit_code", result.exit_code, where=f"{node_pair.a.name} -> {node_pair.b.name} ({node_pair.b.address})",
                     detail=detail[0][:200])
