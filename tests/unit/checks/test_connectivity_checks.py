"""The mesh checks' node scripts and what an item judges from its two nodes' outputs (real ping/fping outputs)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_gpufabric.checks.connectivity import MESHES, PingMesh, describe, loss_percent, ping_values, ssh_values
from pytest_gpufabric.checks.mesh_commands import (
    SourceProbes,
    ping_mesh_command,
    ping_mesh_seconds,
    ssh_mesh_command,
)
from pytest_gpufabric.inventory import Node, load_inventory
from pytest_gpufabric.lab.synthetic_site import synthesize
from pytest_gpufabric.measuring.mesh import NodeMesh, mesh_plan
from pytest_gpufabric.parsers.ping import parse_ping
from pytest_gpufabric.parsers.sections import frame
from pytest_gpufabric.transport.base import CommandResult

OUTPUTS = Path(__file__).resolve().parents[3] / "fixtures" / "outputs"


def _nodes(count: int, rails: int, folder: Path) -> list[Node]:
    """Nodes of a synthesized inventory, loaded as a run loads them: node000N's NIC on rail r at 10.(100+r).0.(N+1)."""
    path = folder / "site.yaml"
    path.write_text(yaml.safe_dump(synthesize(count, rails)), encoding="utf-8")
    return list(load_inventory(path, ["mi300x-thor2"]).nodes)


def test_what_each_node_probes_follows_the_documents(tmp_path: Path) -> None:
    a, b, c = _nodes(3, 2, tmp_path)
    every = MESHES["NET-001"].sources(a, [b, c])  # type: ignore[union-attr]
    assert every == [SourceProbes("10.100.0.2", ("10.100.0.3", "10.101.0.3", "10.100.0.4", "10.101.0.4")),
                     SourceProbes("10.101.0.2", ("10.100.0.3", "10.101.0.3", "10.100.0.4", "10.101.0.4"))]
    same_rail = MESHES["NET-002"].sources(a, [b, c])  # type: ignore[union-attr]
    assert same_rail == [SourceProbes("10.100.0.2", ("10.100.0.3", "10.100.0.4")),
                         SourceProbes("10.101.0.2", ("10.101.0.3", "10.101.0.4"))]
    jumbo = ping_mesh_command(same_rail, jumbo=True)
    assert "fping -q -c 5 -p 100 -i 1 -t 1000 -b 8972 -M -S" in jumbo  # S0 2.6: 8972 bytes, DF
    assert 'ping -I "$s0" -c 5 -i 0.2 -W 1 -w 10 -s 8972 -M do "$t"' in jumbo  # without fping: iputils, as S0 2.4.3
    assert "-b 8972" not in ping_mesh_command(every) and "-M" not in ping_mesh_command(every)  # NET-001: default payload
    assert "ssh -o BatchMode=yes -o ConnectTimeout=10" in ssh_mesh_command(["10.0.0.2"])
    assert ping_mesh_seconds(every) == pytest.approx(1.404)  # (5 - 1) x 100 ms + 4 sends x 1 ms + 1 s and ping_mesh_bound_s(every) > 2 * ping_mesh_seconds(every)


def test_commands_depend_on_the_probes_only(tmp_path: Path) -> None:
    a, b = _nodes(2, 2, tmp_path)
    assert MESHES["NET-001"].command(a, [b]) == MESHES["NET-001"].command(a, [b])


def _mesh(node: Node, *sections: tuple[str, int, list[str]]) -> NodeMesh:
    result = CommandResult(node.name, "script", "".join(frame(*section) for section in sections), "", 0, 0.1)
    return NodeMesh(node.name, result, MESHES["NET-001"].facts(node, result))


def test_an_item_judges_both_ways_and_names_what_it_could_not_read(tmp_path: Path) -> None:
    a, b = _nodes(2, 1, tmp_path)
    down = (OUTPUTS / "fping" / "peer-link-down.txt").read_text().replace("172.30.0.2", "10.100.0.3").splitlines()
    outputs = {"node0001": _mesh(a, ("fping 10.100.0.2", 1, down)),
               "node0002": _mesh(b, ("fping 10.100.0.3", 1, ["garbage that is no fping line"]))}
    values = ping_values(outputs, a, b)
    assert values[0] == (100.0, "node0001/bnxt_re0 (10.100.0.2) -> node0002/bnxt_re0 (10.100.0.3)", "0/3 replies (fping)")
    measured, where, why = values[1]
    assert measured is None and where.startswith("node0002/bnxt_re0") and "cannot parse fping output" in why


def test_ping_sections_without_fping_and_unreachable_nodes(tmp_path: Path) -> None:
    a, b = _nodes(2, 1, tmp_path)
    ok = (OUTPUTS / "ping" / "netns-routed-ok.txt").read_text().splitlines()
    outputs = {"node0001": _mesh(a, ("ping 10.100.0.2 10.100.0.3", 0, ok)),
               "node0002": NodeMesh("node0002", None, error="transport: node0002: unreachable")}
    assert [value[0] for value in ping_values(outputs, a, b)] == [0.0, None]
    ssh = MESHES["HOST-008"]
    result = CommandResult("node0001", "s", frame(f"ssh {b.address}", 255, ["Permission denied (publickey)."]), "", 0, 0.1)
    judged = ssh_values({"node0001": NodeMesh("node0001", result, ssh.facts(a, result)), "node0002": outputs["node0002"]}, a, b)
    assert judged[0] == (255, f"node0001 -> node0002 ({b.address})", "Permission denied (publickey).")


def test_every_node_probes_each_peer_of_the_pair_policy_in_waves(tmp_path: Path) -> None:
    nodes = _nodes(4, 1, tmp_path)
    plan = mesh_plan("NET-001", nodes, [("node0001", "node0002"), ("node0003", "node0004"), ("node0001", "node0003")],
                     {"t[a]": ("node0001", "node0002"), "t[b]": ("node0001", "node0003")}, fanout=2)
    assert [peer.name for peer in plan.peers["node0001"]] == ["node0002", "node0003"]
    assert plan.waves == (("node0001", "node0002"), ("node0003", "node0004"))
    assert (plan.item_wave("t[a]"), plan.item_wave("t[b]"), plan.members(1), plan.members(2)) == (1, 2, 1, 1)


def test_loss_of_real_outputs() -> None:
    assert loss_percent(parse_ping((OUTPUTS / "ping" / "netns-routed-ok.txt").read_text()).facts) == 0.0
    assert loss_percent(parse_ping((OUTPUTS / "ping" / "netns-peer-mtu1500-loss.txt").read_text()).facts) == 100.0
    unreachable = parse_ping((OUTPUTS / "ping" / "netns-network-unreachable.txt").read_text()).facts
    assert loss_percent(unreachable) == 100.0 and "unreachable" in describe(unreachable).lower()
    assert isinstance(MESHES["NET-002"], PingMesh) and MESHES["NET-002"].jumbo
