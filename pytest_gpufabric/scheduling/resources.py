"""The exclusive resources (NICs, GPUs, perftest ports) a check item occupies while it runs.

Traffic-generating checks (perftest, collectives, OSU, ping meshes) must never share a NIC or GPU with
another such check at the same time; read-only checks occupy nothing. A cluster- or node-scoped
collective occupies every NIC and GPU of its nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_gpufabric.checks.perf_commands import port_for
from pytest_gpufabric.targets import NodePairTarget

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Nic, Node

EXCLUSIVE_AREAS = ("NET", "PERF", "COLL", "OSU")


def is_exclusive(check_id: str) -> bool:
    """True for checks that put traffic on NICs or GPUs (their items hold locks)."""
    return check_id.split("-", 1)[0] in EXCLUSIVE_AREAS


def nic_resources(node: Node, nic: Nic) -> list[str]:
    """A NIC, its adjacent GPU and the perftest port its servers use on that node."""
    names = [f"nic:{node.name}/{nic.name}", f"port:{node.name}/{port_for(nic.rail)}"]
    if nic.gpu is not None:
        names.append(f"gpu:{node.name}/{nic.gpu}")
    return names


def node_resources(node: Node) -> list[str]:
    """Every NIC, GPU and perftest port of a node."""
    names = [name for nic in node.nics for name in nic_resources(node, nic)]
    names += [f"gpu:{node.name}/{gpu.index}" for gpu in node.gpus]
    return names


def resources_of(check_id: str, target: Any) -> tuple[str, ...]:
    """The sorted resource names an item of ``check_id`` on ``target`` occupies (empty when not exclusive)."""
    if target is None or not is_exclusive(check_id):
        return ()
    names: list[str] = []
    if hasattr(target, "nic_a"):
        names = nic_resources(target.node_a, target.nic_a) + nic_resources(target.node_b, target.nic_b)
    elif hasattr(target, "nic") and hasattr(target, "node"):
        names = nic_resources(target.node, target.nic)
        if getattr(target, "gpu", None) is not None:
            names.append(f"gpu:{target.node.name}/{target.gpu.index}")
    else:
        names = [name for node in getattr(target, "nodes", ()) for name in node_resources(node)]
    return tuple(sorted(set(names)))


def is_traffic(check_id: str, target: Any) -> bool:
    """Whether an item of ``check_id`` on ``target`` occupies resources (``resources_of`` is not empty),
    decided without building them: asked once per collected item."""
    if target is None or not is_exclusive(check_id):
        return False
    if hasattr(target, "nic_a") or (hasattr(target, "nic") and hasattr(target, "node")):
        return True
    return any(node.nics or node.gpus for node in getattr(target, "nodes", ()))


def ordering_keys(target: Any) -> tuple[str, ...]:
    """What an item occupies for ordering in rounds, at the coarsest grain that keeps rounds right: the NIC
    of a NIC-level target, else its whole nodes. Two or three names per item, whatever the node's size (the
    locks, taken when the item runs, hold the exact resources)."""
    if isinstance(target, NodePairTarget):
        return target.a.name, target.b.name
    if hasattr(target, "nic_a"):
        return f"{target.node_a.name}/{target.nic_a.name}", f"{target.node_b.name}/{target.nic_b.name}"
    if hasattr(target, "nic") and hasattr(target, "node"):
        return (f"{target.node.name}/{target.nic.name}",)
    return tuple(node.name for node in getattr(target, "nodes", ()))
