"""The lab's plan (names, addresses, tables) and its bookkeeping, without building anything."""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.mgmt_subnet import choose_free_subnet
from pytest_gpufabric.lab.registry import Owner, current_owner, process_start_ticks
from pytest_gpufabric.lab.topology import NAMESPACE_PATTERN, plan_lab

MGMT = IPv4Network("10.251.7.0/24")


def test_plan_follows_the_24_bit_subnet_scheme() -> None:
    plan = plan_lab("a1b2c3", nodes=4, rails=2, mgmt_subnet=MGMT)
    node2 = plan.nodes[1]
    assert node2.name == "node02"
    assert str(node2.mgmt_ip) == "10.251.7.2"
    rail1 = node2.nic(1)
    assert (rail1.name, rail1.netdev, str(rail1.ipv4)) == (
        "benic2p1",  # no RDMA device: named after its interface, as discovery names it
        "benic2p1",
        "172.30.1.2/24",
    )
    assert (str(rail1.gateway), rail1.route_table) == ("172.30.1.254", 102)
    assert str(plan.mgmt_root_ip) == "10.251.7.254/24"


def test_every_interface_name_fits_the_kernel_limit_and_namespaces_match_the_sweeper() -> (
    None
):
    plan = plan_lab("ffffff", nodes=64, rails=16, mgmt_subnet=MGMT)
    names = [plan.root_veth, plan.mgmt_bridge, plan.mgmt_uplink, *plan.rail_bridges]
    for node in plan.nodes:
        names += [
            node.mgmt_netdev,
            node.mgmt_port,
            *(n.netdev for n in node.nics),
            *(n.leaf_port for n in node.nics),
        ]
    assert max(len(name) for name in names) <= 15
    assert all(NAMESPACE_PATTERN.match(ns) for ns in plan.namespaces)
    assert len(set(plan.namespaces)) == len(plan.namespaces)
    tables = {nic.route_table for nic in plan.nodes[0].nics}
    assert not tables & {253, 254, 255}


@pytest.mark.parametrize(
    ("nodes", "rails", "lab_id"),
    [
        (0, 2, "abcdef"),
        (65, 2, "abcdef"),
        (2, 0, "abcdef"),
        (2, 17, "abcdef"),
        (2, 2, "ABCDEF"),
    ],
)
def test_plan_rejects_sizes_and_ids_out_of_range(
    nodes: int, rails: int, lab_id: str
) -> None:
    with pytest.raises(UsageError):
        plan_lab(lab_id, nodes=nodes, rails=rails, mgmt_subnet=MGMT)


def test_unknown_rail_is_a_usage_error() -> None:
    plan = plan_lab("abcdef", nodes=1, rails=2, mgmt_subnet=MGMT)
    with pytest.raises(UsageError, match="no NIC on rail 5"):
        plan.nodes[0].nic(5)


def test_management_subnet_avoids_every_route_in_use() -> None:
    used = [
        IPv4Network("10.251.1.0/24"),
        IPv4Network("10.251.2.128/25"),
        IPv4Network("192.0.2.0/24"),
    ]
    assert choose_free_subnet(used) == IPv4Network("10.251.3.0/24")
    with pytest.raises(LabError, match="no free /24"):
        choose_free_subnet([IPv4Network("10.0.0.0/8")])


def test_owner_liveness_tells_this_process_from_a_reused_pid() -> None:
    me = current_owner()
    assert me.alive()
    assert Owner.parse(me.serialize()) == me
    assert not Owner(me.pid, me.start_ticks + 1).alive()
    assert Owner.parse("garbage") is None
    assert process_start_ticks(2**22 + 1) is None
