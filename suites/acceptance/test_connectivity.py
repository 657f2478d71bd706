"""Connectivity between nodes as meshes: ping mesh, jumbo frames end to end, passwordless SSH (NET-001, NET-002,
HOST-008). Every node probes all its peers at once (``measuring.mesh``, ``checks.mesh_commands``); each node-pair
item judges the probes of its two nodes, both ways."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.connectivity import jumbo_values, ping_values, ssh_values
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.measuring.rails import RailMeasurement
from pytest_gpufabric.targets import NodePairTarget


@pytest.mark.check("NET-001")
def test_ping_mesh(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    values = ping_values(gpufabric.mesh(), node_pair.a, node_pair.b)
    gpufabric.expect_probes("loss_percent", values, f"NIC pairs answered, both ways (S0 2.4.3: {len(values)} probed)")


@pytest.mark.check("NET-002")
def test_jumbo_frames(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    outputs = gpufabric.mesh()
    rails = []
    for pair in gpufabric.rail_pairs:
        values = jumbo_values(outputs, pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, pair.id)
        missing = [f"{where}: {detail}" for measured, where, detail in values if measured is None]
        rails.append(RailMeasurement(pair, None, (), "MeasurementMissing", "; ".join(missing)) if missing
                     else RailMeasurement(pair, [("loss_percent", *value) for value in values], ()))
    gpufabric.expect_rails(rails, lambda judged: judged)


@pytest.mark.check("HOST-008")
def test_passwordless_ssh(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    gpufabric.expect_probes("exit_code", ssh_values(gpufabric.mesh(), node_pair.a, node_pair.b), "logins without a password")
