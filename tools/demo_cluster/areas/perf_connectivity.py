"""Demo outputs of NET-001 (ping mesh), NET-002 (jumbo ping) and HOST-008 (passwordless ssh).

Each node runs one command per mesh check (``checks.connectivity``, the same function the mesh engine uses); the
demo's nodes have fping, whose output follows fixtures/outputs/fping/ (fping 5.1, captured in network namespaces).

Injected fault (consistent with basics.py): node04, slot 5 has MTU 1500, so 8972-byte probes with DF set to and
from node04/bnxt_re5 get no reply (NET-002 fails for every partner: localization names the NIC).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from pytest_gpufabric.checks.connectivity import MESHES, PingMesh
from pytest_gpufabric.checks.mesh_commands import PROBES
from pytest_gpufabric.parsers.sections import frame
from pytest_gpufabric.expectations import known_profiles
from pytest_gpufabric.inventory import load_inventory
from tools.demo_cluster.areas.basics import MTU_1500
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import NODES, DemoNode

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Inventory, Nic, Node

REPO = Path(__file__).resolve().parents[3]


def demo_inventory() -> Inventory:
    """The demo's site.yaml loaded by the project's own loader (so commands are built from the same model)."""
    from tools.demo_cluster.__main__ import inventory

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "site.yaml"
        path.write_text(yaml.safe_dump(inventory(NODES), sort_keys=False), encoding="utf-8")
        return load_inventory(path, known_profiles(REPO / "thresholds"))


def fping_lines(destinations: list[str], lost: set[str]) -> list[str]:
    """fping 5.1 ``-q -c N`` summary lines (format of fixtures/outputs/fping/ok.txt and peer-link-down.txt): every
    destination answers every probe, except those in ``lost`` (no reply at all)."""
    width = max(len(destination) for destination in destinations)
    return [f"{destination:<{width}} : xmt/rcv/%loss = {PROBES}/0/100%" if destination in lost else
            f"{destination:<{width}} : xmt/rcv/%loss = {PROBES}/{PROBES}/0%, min/avg/max = 0.041/0.043/0.045"
            for destination in destinations]


def framed(sections: list[tuple[str, int, list[str]]]) -> str:
    """The node script's framing (parsers/sections.py): each probe's label, exit status and lines."""
    return "".join(frame(label, code, lines) for label, code, lines in sections)


def mesh_output(check_id: str, node: Node, peers: list[Node], lost: Callable[[Node, Nic, Node, Nic], bool]) -> tuple[str, str]:
    """A ping mesh check's command of ``node`` and what fping printed: every probe answered but those ``lost``."""
    mesh = MESHES[check_id]
    assert isinstance(mesh, PingMesh)
    command, _ = mesh.command(node, peers)
    nics = {str(nic.address): (owner, nic) for owner in [node, *peers] for nic in owner.nics}
    sections = []
    for probes in mesh.sources(node, peers):
        _, source = nics[probes.source]
        gone = {destination for destination in probes.destinations if lost(node, source, *nics[destination])}
        sections.append((f"fping {probes.source}", 1 if gone else 0, fping_lines(list(probes.destinations), gone)))
    return command, framed(sections)


def _broken(node: str, rail: int) -> bool:
    return (node, rail) in MTU_1500


def build(node: DemoNode) -> Outputs:
    """Each mesh check's one command of this node (all its peers, as the mesh engine builds it) and its output."""
    inventory = demo_inventory()
    me = inventory.node(node.name)
    peers = [other for other in inventory.nodes if other.name != node.name]
    outputs: Outputs = {}
    for check_id, jumbo in (("NET-001", False), ("NET-002", True)):
        command, text = mesh_output(check_id, me, peers, lambda a, nic_a, b, nic_b: jumbo and (
            _broken(a.name, nic_a.rail) or _broken(b.name, nic_b.rail)))
        outputs[command] = (text, 0)
    later = [other for other in inventory.nodes[[n.name for n in inventory.nodes].index(node.name) + 1:]]
    if later:  # HOST-008 is one way: from the first node of each pair (in inventory order) to the second
        command, _ = MESHES["HOST-008"].command(me, later)
        outputs[command] = (framed([(f"ssh {other.address}", 0, []) for other in later]), 0)
    return outputs
