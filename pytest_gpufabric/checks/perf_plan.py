"""Which perftest legs a check runs on a target: ends, roles, directions, ports (pure, from the inventory)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_gpufabric.checks.perf import PerftestLeg
from pytest_gpufabric.checks.perf_commands import (
    BW_FLAGS,
    QUEUE_PAIRS,
    PerftestEnd,
    gpu_flag,
)
from pytest_gpufabric.exclusive.names import port_for

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Nic, Node

LOOPBACK = "127.0.0.1"
BW_WITH_QPS = (*BW_FLAGS, "-q", str(QUEUE_PAIRS))


def nic_end(node: Node, nic: Nic, *, gpu: bool = False, core: int | None = None, address: str | None = None) -> PerftestEnd:
    """A perftest end on ``nic``; ``gpu`` puts the buffer in the NIC's adjacent GPU (--use_rocm / --use_cuda)."""
    flag = None
    if gpu:
        if nic.gpu is None:
            raise ValueError(f"{node.name}/{nic.name} has no adjacent GPU in the inventory")
        flag = gpu_flag(node.platform.gpu_vendor, nic.gpu)
    return PerftestEnd(nic.name, address or str(nic.address), flag, core)


def loopback_leg(node: Node, nic: Nic, gpu_index: int) -> PerftestLeg:
    """PERF-001 (S4 "Perftest GPU to NIC"): server on host memory, client with GPU memory, both on the node, to 127.0.0.1."""
    server = PerftestEnd(nic.name, LOOPBACK)
    client = PerftestEnd(nic.name, LOOPBACK, gpu_flag(node.platform.gpu_vendor, gpu_index))
    return PerftestLeg(f"{node.name}/{nic.name}~gpu{gpu_index} loopback", "loopback", "ib_write_bw", node.name, server,
                       node.name, client, port_for(nic.rail), BW_WITH_QPS)


def pair_legs(node_a: Node, nic_a: Nic, node_b: Node, nic_b: Nic, *, tool: str, flags: tuple[str, ...],
              gpu_server: bool, gpu_client: bool, both_directions: bool = True,
              cores: tuple[int | None, int | None] = (None, None)) -> list[PerftestLeg]:
    """Server on A and client on B, then (``both_directions``) the roles swapped; one port per server NIC."""
    name_a, name_b = f"{node_a.name}/{nic_a.name}", f"{node_b.name}/{nic_b.name}"
    legs = [PerftestLeg(f"{name_b}->{name_a}", "a-serves", tool, node_a.name,
                        nic_end(node_a, nic_a, gpu=gpu_server, core=cores[0]), node_b.name,
                        nic_end(node_b, nic_b, gpu=gpu_client, core=cores[1]), port_for(nic_a.rail), flags)]
    if both_directions:
        legs.append(PerftestLeg(f"{name_a}->{name_b}", "b-serves", tool, node_b.name,
                                nic_end(node_b, nic_b, gpu=gpu_server, core=cores[1]), node_a.name,
                                nic_end(node_a, nic_a, gpu=gpu_client, core=cores[0]), port_for(nic_b.rail), flags))
    return legs


def rail_pairs(node_a: Node, node_b: Node) -> list[tuple[Nic, Nic]]:
    """The same-rail NIC pairs of two nodes, in rail order (PERF-006: one ib_write_bw per pair)."""
    by_rail = {nic.rail: nic for nic in node_b.nics}
    return [(nic, by_rail[nic.rail]) for nic in sorted(node_a.nics, key=lambda n: n.rail) if nic.rail in by_rail]
