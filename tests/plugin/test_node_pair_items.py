"""Checks judged per NIC pair run as one item per node pair: every rail judged, one verdict per NIC pair in
results.jsonl and Allure, the item's message names each failing rail, localization per NIC pair, and a rerun
of only the failed NIC pairs. The real NET-002 suite test (a mesh: each node probes all its peers in one
command) on a replayed 4-node, 2-rail cluster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sitekit import Site

from pytest_gpufabric.expectations import known_profiles
from pytest_gpufabric.inventory import load_inventory
from tools.demo_cluster.areas.perf_connectivity import mesh_output

REPO = Path(__file__).resolve().parents[2]
NODES = 4
JUMBO_PROFILE = """profile: p
expectations:
  NET-002:
    loss_percent: {op: "==", value: 0, unit: "%", source: "S0 2.6 items 10-11"}
"""
BAD_NIC = ("node03", 1)  # fails with every partner on rail 1
BAD_LINK = {("node01", "node02", 0)}  # rail 0 between node01 and node02 only


def _nic(node: int, rail: int) -> dict[str, object]:
    return {"name": f"bnxt_re{rail}", "netdev": f"eth{rail}", "ipv4": f"192.168.{rail + 1}.{node}/24",
            "pci": f"0000:{node}{rail}:00.0", "speed_gbps": 400, "rail": rail, "gpu": 0}


def _bad(a: str, b: str, rail: int) -> bool:
    return (a, b, rail) in BAD_LINK or BAD_NIC in ((a, rail), (b, rail))


@pytest.fixture
def jumbo_site(site: Site) -> Site:
    site.data["nodes"] = [{"name": f"node0{n}", "address": f"10.0.0.{n}", "gpus": [{"index": 0, "pci": f"0000:{n}c:00.0"}],
                           "nics": [_nic(n, 0), _nic(n, 1)]} for n in range(1, NODES + 1)]
    (site.pytester.path / "thresholds" / "p.yaml").write_text(JUMBO_PROFILE)
    (site.pytester.path / "test_checks.py").write_text((REPO / "suites" / "acceptance" / "test_connectivity.py").read_text())
    inventory = load_inventory(site.write(), known_profiles(site.pytester.path / "thresholds"))
    outputs: dict[str, dict[str, str]] = {}
    for node in inventory.nodes:
        peers = [other for other in inventory.nodes if other is not node]
        command, text = mesh_output("NET-002", node, peers, lambda a, nic_a, b, nic_b: _bad(
            *sorted((a.name, b.name)), nic_a.rail))  # type: ignore[misc]
        outputs[node.name] = {command: text}
    site.record(outputs)
    return site


def _records(site: Site) -> dict[str, dict[str, object]]:
    return {str(r["item"]): r for r in site.results()}


def test_one_item_per_node_pair_one_verdict_per_nic_pair(jumbo_site: Site) -> None:
    result = jumbo_site.run("--replay", str(jumbo_site.recording), "-k", "jumbo", "--alluredir", "allure")
    result.assert_outcomes(passed=2, failed=4)
    records = _records(jumbo_site)
    assert sorted(records) == ["node01->node02", "node01->node03", "node01->node04", "node02->node03", "node02->node04", "node03->node04"]
    link = records["node01->node02"]
    assert link["scope"] == "node_pair"
    assert [(p["pair"], p["rail"], p["outcome"]) for p in link["pairs"]] == [  # type: ignore[union-attr]
        ("node01/bnxt_re0->node02/bnxt_re0", 0, "failed"), ("node01/bnxt_re1->node02/bnxt_re1", 1, "passed")]
    failed = link["pairs"][0]  # type: ignore[index]
    assert (failed["measured"], failed["expected"], failed["source"]) == (100.0, "== 0 %", "S0 2.6 items 10-11")
    assert failed["hint"] and failed["measurements"] and link["pairs"][1]["hint"] is None  # type: ignore[index]
    assert "rail 0: node01/bnxt_re0 <-> node02/bnxt_re0 100.0 % != 0" in str(link["message"])
    assert "rail 1" not in str(link["message"])
    out = result.stdout.str()
    assert "suspect node03/bnxt_re1: fails with 3 partners" in out
    assert "suspect link node01/bnxt_re0 <-> node02/bnxt_re0" in out
    steps = [step["name"] for path in (jumbo_site.pytester.path / "allure").glob("*-result.json")
             for step in json.loads(path.read_text()).get("steps", []) if "node01->node02" in json.loads(path.read_text())["name"]]
    assert steps == ["rail 0: node01/bnxt_re0 <-> node02/bnxt_re0 100.0 % != 0 [failed]",
                     "rail 1: node01/bnxt_re1 <-> node02/bnxt_re1 0.0 % [passed]"]


def test_rerun_of_failed_nic_pairs_measures_only_those(jumbo_site: Site) -> None:
    jumbo_site.run("--replay", str(jumbo_site.recording), "-k", "jumbo")
    first = jumbo_site.pytester.path / "first.jsonl"
    first.write_text((jumbo_site.pytester.path / "results" / "results.jsonl").read_text())
    result = jumbo_site.run("--replay", str(jumbo_site.recording), "-k", "jumbo", f"--rerun-failed-pairs={first}")
    result.assert_outcomes(failed=4)
    measured = {p["pair"] for r in jumbo_site.results() for p in r["pairs"]}  # type: ignore[union-attr]
    assert measured == {"node01/bnxt_re0->node02/bnxt_re0", "node01/bnxt_re1->node03/bnxt_re1",
                        "node02/bnxt_re1->node03/bnxt_re1", "node03/bnxt_re1->node04/bnxt_re1"}
    commands = [c["command"] for r in jumbo_site.results() for c in r["commands"]]  # type: ignore[union-attr]
    assert len(commands) == 8 and all(" mesh of node0" in command for command in commands)  # each item: its two nodes


def test_rerun_file_that_cannot_be_read_is_a_usage_error(jumbo_site: Site) -> None:
    result = jumbo_site.run("--replay", str(jumbo_site.recording), "--rerun-failed-pairs=missing.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--rerun-failed-pairs: cannot read missing.jsonl" in result.stderr.str()


def test_mesh_prints_its_estimate_then_one_line_per_wave(jumbo_site: Site) -> None:
    result = jumbo_site.run("--replay", str(jumbo_site.recording), "-k", "jumbo", "--fanout=2")
    lines = result.stdout.lines
    estimate = next(index for index, line in enumerate(lines) if line.startswith("NET-002 mesh:"))
    assert lines[estimate].startswith("NET-002 mesh: 4 nodes, each probing its peers (up to 3) at once and both ways, "
                                      "2 wave(s); 6 node-pair items; estimated 3 s (fping from every NIC at once")
    progress = [line for line in lines if line.startswith("NET-002 mesh wave")]
    assert len(progress) == 2 and all(lines.index(line) > estimate for line in progress)
    assert progress[-1].startswith("NET-002 mesh wave 2/2 done: nodes probed in ")
    assert ", 6 node pairs judged, 4 failing so far, elapsed " in progress[-1] and progress[-1].endswith("remaining ~0 s")
