"""The lab's plan: names and addresses of every namespace, link and NIC, computed before anything is built.

Scheme (after S0 2.4.1, "Single Leaf Switch Topology with 24-bit Subnets"): rail ``r`` is the subnet
172.30.<r>.0/24, the leaf answers at .254 on every rail, node ``i`` (0-based; named ``node<i+1>``) has
its rail-``r`` NIC at .<i+1>, and each NIC has its own source-routing table ``101 + r``.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.inventory.placeholders import placeholder_pci

NAMESPACE_PREFIX = "gpufabric-lab-"
"""Every namespace of every lab starts with this; the sweeper removes nothing else."""

LAB_ID_PATTERN = re.compile(r"^[0-9a-f]{6}$")
NAMESPACE_PATTERN = re.compile(
    rf"^{re.escape(NAMESPACE_PREFIX)}(?P<lab_id>[0-9a-f]{{6}})-(?P<role>leaf|mgmt|probe|node\d{{2,3}})$"
)

BACKEND_MTU = 9000
FIRST_ROUTE_TABLE = 101
MAX_NODES = 64
MAX_RAILS = 16
LEAF_HOST = 254
MGMT_ROOT_HOST = 254


@dataclass(frozen=True)
class NicPlan:
    """One backend NIC of a node: a veth whose peer is a port of the rail's bridge in the leaf."""

    rail: int
    name: str  # the inventory's NIC name: the RDMA device on real hardware, the interface here (as discovery names it)
    netdev: str  # interface name inside the node namespace
    ipv4: IPv4Interface
    gateway: IPv4Address
    route_table: int
    leaf_port: str  # interface name of the peer inside the leaf namespace
    pci: str  # placeholder PCIe address in domain ffff (a veth has none; the inventory requires one)


@dataclass(frozen=True)
class NodePlan:
    """One node: its namespace, management address and backend NICs (one per rail)."""

    index: int
    name: str
    namespace: str
    mgmt_ip: IPv4Address
    mgmt_netdev: str  # interface inside the node namespace
    mgmt_port: str  # peer interface, a port of the management bridge
    nics: tuple[NicPlan, ...]

    def nic(self, rail: int) -> NicPlan:
        for nic in self.nics:
            if nic.rail == rail:
                return nic
        raise UsageError(
            f"{self.name} has no NIC on rail {rail} (rails: {[n.rail for n in self.nics]})"
        )


@dataclass(frozen=True)
class LabPlan:
    """Everything the builder creates, by name and address."""

    lab_id: str
    leaf_namespace: str
    mgmt_namespace: str
    mgmt_subnet: IPv4Network
    mgmt_root_ip: IPv4Interface  # the root namespace's end of the management network
    root_veth: str  # the only interface the lab puts in the root namespace
    mgmt_bridge: str
    mgmt_uplink: str  # peer of root_veth inside the management namespace
    rail_subnets: tuple[IPv4Network, ...]
    rail_bridges: tuple[str, ...]  # one bridge per rail in the leaf namespace
    nodes: tuple[NodePlan, ...]

    @property
    def namespaces(self) -> tuple[str, ...]:
        return (
            self.mgmt_namespace,
            self.leaf_namespace,
            *(n.namespace for n in self.nodes),
        )


def new_lab_id() -> str:
    """A random 6-hex-digit id; namespaces and the root veth carry it, so two labs never collide."""
    return secrets.token_hex(3)


def rail_subnet(rail: int) -> IPv4Network:
    return IPv4Network(f"172.30.{rail}.0/24")


def plan_lab(lab_id: str, nodes: int, rails: int, mgmt_subnet: IPv4Network) -> LabPlan:
    """Compute names and addresses for a lab of ``nodes`` nodes and ``rails`` rails."""
    if not LAB_ID_PATTERN.match(lab_id):
        raise UsageError(f"lab id {lab_id!r} must be 6 lowercase hex digits")
    if not 1 <= nodes <= MAX_NODES:
        raise UsageError(f"nodes must be 1..{MAX_NODES}, got {nodes}")
    if not 1 <= rails <= MAX_RAILS:
        raise UsageError(f"rails must be 1..{MAX_RAILS}, got {rails}")
    if mgmt_subnet.prefixlen != 24:
        raise UsageError(f"management subnet must be a /24, got {mgmt_subnet}")
    subnets = tuple(rail_subnet(r) for r in range(rails))
    base = f"{NAMESPACE_PREFIX}{lab_id}"
    node_plans = tuple(
        _plan_node(i, f"{base}-node{i + 1:02d}", subnets, mgmt_subnet)
        for i in range(nodes)
    )
    return LabPlan(
        lab_id=lab_id,
        leaf_namespace=f"{base}-leaf",
        mgmt_namespace=f"{base}-mgmt",
        mgmt_subnet=mgmt_subnet,
        mgmt_root_ip=IPv4Interface(f"{mgmt_subnet[MGMT_ROOT_HOST]}/24"),
        root_veth=f"gfl-{lab_id}",
        mgmt_bridge="mgmtbr",
        mgmt_uplink="uplink",
        rail_subnets=subnets,
        rail_bridges=tuple(f"rail{r}" for r in range(rails)),
        nodes=node_plans,
    )


def _plan_node(
    index: int, namespace: str, subnets: tuple[IPv4Network, ...], mgmt: IPv4Network
) -> NodePlan:
    host = index + 1
    nics = tuple(
        NicPlan(
            rail=r,
            name=f"benic{r + 1}p1",
            netdev=f"benic{r + 1}p1",
            ipv4=IPv4Interface(f"{subnet[host]}/24"),
            gateway=subnet[LEAF_HOST],
            route_table=FIRST_ROUTE_TABLE + r,
            leaf_port=f"r{r}n{host}",
            pci=placeholder_pci(r + 1),
        )
        for r, subnet in enumerate(subnets)
    )
    return NodePlan(
        index=index,
        name=f"node{host:02d}",
        namespace=namespace,
        mgmt_ip=mgmt[host],
        mgmt_netdev="mgmt0",
        mgmt_port=f"n{host}",
        nics=nics,
    )
