"""The backend is routed like S0 2.4.1: one /24 per rail, the leaf at .254, per-NIC source routing."""

from __future__ import annotations

import pytest
from labkit import JUMBO_PAYLOAD, link_state, ping, route_get

from pytest_gpufabric.lab import Lab
from pytest_gpufabric.lab.iproute import ip_json, run

pytestmark = pytest.mark.lab


def test_full_ping_mesh_between_hosts_as_in_s0_2_4_3(lab: Lab) -> None:
    """Every NIC of every host reaches every NIC of every other host (S0 2.4.3's script, over ssh)."""
    failures: list[str] = []
    for source_node in lab.nodes:
        pairs = [
            (src.ipv4.ip, dst.ipv4.ip)
            for src in source_node.nics
            for other in lab.nodes
            if other is not source_node
            for dst in other.nics
        ]
        script = "; ".join(
            f"ping -n -c 1 -W 1 -I {s} {d} >/dev/null || echo FAIL {s} {d}"
            for s, d in pairs
        )
        done = lab.ssh(source_node.index, script, timeout_s=60)
        assert done.returncode == 0, done.stderr
        failures += done.stdout.split("\n") if done.stdout.strip() else []
    assert failures == []


def test_cross_rail_traffic_is_routed_through_the_leaf_by_the_source_table(
    lab: Lab,
) -> None:
    node1, node2 = lab.nodes[0], lab.nodes[1]
    source, target = node1.nic(0), node2.nic(1)
    route = route_get(lab, node1.index, str(target.ipv4.ip), str(source.ipv4.ip))
    assert route["gateway"] == str(source.gateway)
    assert route["dev"] == source.netdev
    assert route["table"] == str(source.route_table)
    done = ping(lab, node1.index, str(source.ipv4.ip), str(target.ipv4.ip))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ttl=63" in done.stdout  # one routed hop: the leaf


def test_rules_and_tables_match_s0_2_4_1(lab: Lab) -> None:
    for node in lab.nodes:
        rules = lab.exec_in(node.index, ["ip", "rule", "show"]).stdout
        for nic in node.nics:
            assert f"from {nic.ipv4.ip} lookup {nic.route_table}" in rules
            table = lab.exec_in(
                node.index, ["ip", "route", "list", "table", str(nic.route_table)]
            ).stdout
            assert table.strip() == f"default via {nic.gateway} dev {nic.netdev}"


def test_every_backend_link_has_mtu_9000_and_the_leaf_forwards(lab: Lab) -> None:
    for node in lab.nodes:
        for nic in node.nics:
            assert link_state(lab, node.index, nic.netdev)["mtu"] == 9000
    leaf = lab.plan.leaf_namespace
    leaf_links = ip_json("link", "show", netns=leaf)
    backend = [link for link in leaf_links if link["ifname"] != "lo"]
    assert len(backend) == len(lab.plan.rail_bridges) + len(lab.nodes) * len(
        lab.plan.rail_bridges
    )
    assert {link["mtu"] for link in backend} == {9000}
    forward = run(
        ["ip", "netns", "exec", leaf, "sysctl", "-n", "net.ipv4.ip_forward"]
    ).stdout.strip()
    assert forward == "1"


def test_jumbo_frames_cross_the_leaf(lab: Lab) -> None:
    source, target = lab.nodes[2].nic(1), lab.nodes[3].nic(0)
    done = ping(lab, 2, str(source.ipv4.ip), str(target.ipv4.ip), payload=JUMBO_PAYLOAD)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{JUMBO_PAYLOAD + 8} bytes from {target.ipv4.ip}" in done.stdout
