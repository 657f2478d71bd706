"""The exclusive resources (NICs, GPUs, perftest ports) a check item occupies while it runs, by name.

Traffic-generating checks (perftest, collectives, OSU, ping meshes) must never share a NIC or GPU with
another such check at the same time; read-only checks occupy nothing. A cluster- or node-scoped
collective occupies every NIC and GPU of its nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_gpufabric.errors import UsageError

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Nic, Node
    from pytest_gpufabric.targets import NicPairTarget

EXCLUSIVE_AREAS = ("NET", "PERF", "COLL", "OSU")
# perftest's default port is 18515 (ib_write_bw --help); servers of this plugin use the ports above it.
BASE_PORT = 18516


def port_for(rail: int, offset: int = 0) -> int:
    """The perftest server port of a NIC on ``rail`` (``offset`` separates the servers of one NIC in one test).

    Concurrent tests never share a NIC, so a port derived from the server NIC's rail is distinct among all the
    servers running on one node at any time; the port is also a resource of its own (``nic_resources``)."""
    if rail < 0 or offset < 0:
        raise UsageError(f"rail {rail} and port offset {offset} must not be negative")
    return BASE_PORT + rail + 64 * offset


def is_exclusive(check_id: str) -> bool:
    """True for checks that put traffic on NICs or GPUs (their items hold locks)."""
    return check_id.split("-", 1)[0] in EXCLUSIVE_AREAS


def nic_resources(node: Node, nic: Nic) -> list[str]:
    """A NIC, its adjacent GPU and the perftest port its servers use on that node."""
    names = [f"nic:{node.name}/{nic.name}", f"port:{node.name}/{port_for(nic.rail)}"]
    if nic.gpu is not None:
        names.append(f"gpu:{node.name}/{nic.gpu}")
    return names


def resource_node(resource: str) -> str:
    """The node a resource name belongs to (``nic:node01/bnxt_re0`` -> ``node01``)."""
    return resource.partition(":")[2].partition("/")[0]


def rail_resources(pair: NicPairTarget) -> tuple[str, ...]:
    """The NICs, adjacent GPUs and perftest ports one NIC pair occupies, sorted."""
    return tuple(sorted({*nic_resources(pair.node_a, pair.nic_a), *nic_resources(pair.node_b, pair.nic_b)}))


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
