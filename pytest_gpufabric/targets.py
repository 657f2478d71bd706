"""What one test item is about: a node, a GPU, a NIC, a pair... built from the inventory alone.

Ids use inventory names only (``node01``, ``node01/bnxt_re0~gpu0``, ``node01/bnxt_re0->node02/bnxt_re0``),
so adding or removing an unrelated node changes no other item's id (``--lf`` and report history keep working).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Gpu, Inventory, Nic, Node, Switch


class IdRepr:
    """A target's repr is its id: short where reports show parameters (Allure) and never a dump of the
    inventory (SSH user, addresses)."""

    id: str

    def __repr__(self) -> str:
        return self.id


@dataclass(frozen=True, repr=False)
class ClusterTarget(IdRepr):
    """All nodes of one GPU vendor (a collective cannot span vendors): id ``cluster``, or ``cluster-<vendor>``
    in a mixed cluster."""

    nodes: tuple[Node, ...]
    label: str = ""

    @property
    def id(self) -> str:
        return f"cluster-{self.label}" if self.label else "cluster"


@dataclass(frozen=True, repr=False)
class NodeTarget(IdRepr):
    node: Node

    @property
    def id(self) -> str:
        return self.node.name

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.node,)


@dataclass(frozen=True, repr=False)
class GpuTarget(IdRepr):
    node: Node
    gpu: Gpu

    @property
    def id(self) -> str:
        return f"{self.node.name}/gpu{self.gpu.index}"

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.node,)


@dataclass(frozen=True, repr=False)
class NicTarget(IdRepr):
    node: Node
    nic: Nic

    @property
    def id(self) -> str:
        return f"{self.node.name}/{self.nic.name}"

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.node,)


@dataclass(frozen=True, repr=False)
class NicGpuPairTarget(IdRepr):
    node: Node
    nic: Nic
    gpu: Gpu

    @property
    def id(self) -> str:
        return f"{self.node.name}/{self.nic.name}~gpu{self.gpu.index}"

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.node,)


@dataclass(frozen=True, repr=False)
class NodePairTarget(IdRepr):
    """Two nodes; ``rail_pairs`` are their same-rail NIC pairs, which a pair check measures all at once
    (the rails of two nodes are disjoint NICs, GPUs and ports). Built when asked, never stored per item."""

    a: Node
    b: Node

    @property
    def id(self) -> str:
        return f"{self.a.name}->{self.b.name}"

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.a, self.b)

    def rail_pairs(self) -> tuple[NicPairTarget, ...]:
        """The NIC pairs of the same rail, in rail order."""
        by_rail = {nic.rail: nic for nic in self.b.nics}
        return tuple(NicPairTarget(self.a, nic_a, self.b, by_rail[nic_a.rail])
                     for nic_a in sorted(self.a.nics, key=lambda nic: nic.rail) if nic_a.rail in by_rail)


@dataclass(frozen=True, repr=False)
class NicPairTarget(IdRepr):
    """A NIC on one node and the NIC of the same rail on another node (``a`` is the server side)."""

    node_a: Node
    nic_a: Nic
    node_b: Node
    nic_b: Nic

    @property
    def id(self) -> str:
        return f"{self.node_a.name}/{self.nic_a.name}->{self.node_b.name}/{self.nic_b.name}"

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.node_a, self.node_b)


@dataclass(frozen=True, repr=False)
class SwitchTarget(IdRepr):
    switch: Switch

    @property
    def id(self) -> str:
        return self.switch.name

    @property
    def nodes(self) -> tuple[Node, ...]:
        return ()


@dataclass(frozen=True, repr=False)
class SwitchPortTarget(IdRepr):
    """A host-facing switch port and the NIC the inventory cables to it."""

    switch: Switch
    port: str
    node: Node
    nic: Nic

    @property
    def id(self) -> str:
        return f"{self.switch.name}/{self.port}"

    @property
    def nodes(self) -> tuple[Node, ...]:
        return ()


Target = Union[
    ClusterTarget, NodeTarget, GpuTarget, NicTarget, NicGpuPairTarget, NodePairTarget, NicPairTarget,
    SwitchTarget, SwitchPortTarget,
]


def _clusters(inv: Inventory) -> Iterator[Target]:
    groups: dict[str, list[Node]] = {}
    for node in inv.nodes:
        groups.setdefault(node.platform.gpu_vendor, []).append(node)
    for vendor, nodes in groups.items():
        yield ClusterTarget(tuple(nodes), vendor if len(groups) > 1 else "")


def _nodes(inv: Inventory) -> Iterator[Target]:
    for node in inv.nodes:
        yield NodeTarget(node)


def _gpus(inv: Inventory) -> Iterator[Target]:
    for node in inv.nodes:
        for gpu in node.gpus:
            yield GpuTarget(node, gpu)


def _nics(inv: Inventory) -> Iterator[Target]:
    for node in inv.nodes:
        for nic in node.nics:
            yield NicTarget(node, nic)


def _nic_gpu_pairs(inv: Inventory) -> Iterator[Target]:
    for node in inv.nodes:
        for nic in node.nics:
            if nic.gpu is not None:
                yield NicGpuPairTarget(node, nic, node.gpu(nic.gpu))


def _node_pairs(inv: Inventory) -> Iterator[Target]:
    for a, b in combinations(inv.nodes, 2):
        yield NodePairTarget(a, b)


def node_pair_targets(inventory: Inventory, pairs: Iterable[tuple[str, str]]) -> list[NodePairTarget]:
    """Targets of the given node pairs, in the given order; each oriented as in the inventory (stable ids)."""
    nodes = {node.name: (index, node) for index, node in enumerate(inventory.nodes)}
    targets = []
    for first, second in pairs:
        (_, a), (_, b) = sorted((nodes[first], nodes[second]), key=lambda entry: entry[0])
        targets.append(NodePairTarget(a, b))
    return targets


def _nic_pairs(inv: Inventory) -> Iterator[Target]:
    for a, b in combinations(inv.nodes, 2):
        for nic_a in a.nics:
            for nic_b in b.nics:
                if nic_a.rail == nic_b.rail:
                    yield NicPairTarget(a, nic_a, b, nic_b)


def _switches(inv: Inventory) -> Iterator[Target]:
    for switch in inv.switches:
        yield SwitchTarget(switch)


def _switch_ports(inv: Inventory) -> Iterator[Target]:
    by_name = {s.name: s for s in inv.switches}
    for node in inv.nodes:
        for nic in node.nics:
            if nic.switch is not None and nic.switch_port is not None:
                yield SwitchPortTarget(by_name[nic.switch], nic.switch_port, node, nic)


TARGETS_BY_SCOPE: dict[str, Callable[[Inventory], Iterator[Target]]] = {
    "cluster": _clusters,
    "node": _nodes,
    "gpu": _gpus,
    "nic": _nics,
    "nic_gpu_pair": _nic_gpu_pairs,
    "node_pair": _node_pairs,
    "nic_pair": _nic_pairs,
    "switch": _switches,
    "switch_port": _switch_ports,
}


def targets_for_scope(inventory: Inventory, scope: str) -> list[Target]:
    """Every target of ``scope`` in inventory order (deterministic)."""
    return list(TARGETS_BY_SCOPE[scope](inventory))


def platform_tags_of(target: Target) -> list[frozenset[str]]:
    """The platform tags of each machine the target involves (one entry per node or switch)."""
    if isinstance(target, (SwitchTarget, SwitchPortTarget)):
        return [frozenset({target.switch.os})]
    return [node.platform_tags for node in target.nodes]
