"""CAB-001 on the demo: the one miswired NIC (node02/bnxt_re6, planned on leaf3 Ethernet2/1, cabled to leaf1
Ethernet17/1) fails naming both ports and its rail's leaf; every other NIC passes, found by the switches' LLDP tables
(EOS, SONiC, Junos) or, for node04 (no lldpd), by their MAC address tables; a cabling plan CSV replaces the
inventory's plan, and a bad one is refused with one line per problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.checks.cabling_plan import load_cabling_plan
from pytest_gpufabric.cli import main
from pytest_gpufabric.errors import ProblemsError

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
MISWIRED = "node02/bnxt_re6"


def _replay(results: Path, *extra: str) -> dict[str, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance/test_cabling.py", f"--cluster={DEMO / 'site.yaml'}",
         f"--replay={DEMO}", f"--gpufabric-results={results}", "-p", "no:cacheprovider", "-q", *extra],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    return {row["item"]: row for row in rows}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _replay(tmp_path_factory.mktemp("cabling"))


def test_the_miswired_nic_fails_naming_both_ports(demo: dict[str, dict[str, Any]]) -> None:
    row = demo[MISWIRED]
    assert (row["check_id"], row["outcome"]) == ("CAB-001", "failed")
    assert "node02/bnxt_re6 is cabled to leaf1 Ethernet17/1 (leaf1 `show lldp neighbors`" in row["message"]
    assert "planned: leaf3 Ethernet2/1" in row["message"]
    assert "rail 6: planned on leaf3; seen on leaf1" in row["message"]
    assert [m["name"] for m in row["measurements"] if not m["passed"]] == ["cabled_as_planned", "on_rail_leaf"]
    assert row["hint"] and "planned port" in row["hint"]


def test_every_other_cabled_nic_passes_from_lldp_or_the_mac_tables(demo: dict[str, dict[str, Any]]) -> None:
    outcomes = {item: row["outcome"] for item, row in demo.items()}
    assert {item for item, outcome in outcomes.items() if outcome == "failed"} == {MISWIRED}
    assert {item.split("/")[0] for item, outcome in outcomes.items() if outcome == "skipped"} == {"node05", "node06"}
    sources = {item: row["measurements"][0]["detail"] for item, row in demo.items() if row["outcome"] == "passed"}
    assert len(sources) == 31
    assert "leaf2 `show lldp table`" in sources["node01/bnxt_re5"]  # SONiC
    assert "leaf4 `show lldp neighbors`" in sources["node03/bnxt_re7"]  # Junos
    assert "leaf1 `show mac address-table`: 7c:c2:55:04:00:1d learned on Ethernet4/1" in sources["node04/bnxt_re0"]
    assert "leaf2 `show mac`" in sources["node04/bnxt_re4"] and "leaf4 `show ethernet-switching table`" in sources["node04/bnxt_re7"]


def test_a_cabling_plan_replaces_the_inventory_plan(tmp_path: Path) -> None:
    plan = tmp_path / "plan.csv"
    plan.write_text("node,nic,switch,port\nnode02,bnxt_re6,leaf1,Ethernet17/1\nnode01,enp29s0np0,leaf1,Ethernet1/1\n")
    rows = _replay(tmp_path / "results", f"--cabling-plan={plan}")
    assert rows[MISWIRED]["outcome"] == "passed"  # planned where it is; rail 6 is then planned on leaf1 too
    assert f"planned: leaf1 Ethernet17/1 ({plan}:2)" in rows[MISWIRED]["measurements"][0]["detail"]
    assert rows["node01/bnxt_re0"]["outcome"] == "passed"
    assert rows["node03/bnxt_re6"]["outcome"] == "skipped"  # the plan names no port for it


def test_a_bad_cabling_plan_is_one_line_per_problem(tmp_path: Path, demo_inventory: Any) -> None:
    plan = tmp_path / "plan.csv"
    plan.write_text("node,nic,switch,port\nnode09,bnxt_re0,leaf1,Ethernet1/1\nnode01,bnxt_re9,leaf1,Et1\n"
                    "node01,bnxt_re0,leaf 1,Ethernet1/1\nnode01,bnxt_re1,leaf1,Ethernet5/1\nnode01,bnxt_re1,leaf1,Ethernet5/1\n")
    with pytest.raises(ProblemsError) as refused:
        load_cabling_plan(plan, demo_inventory)
    assert refused.value.problems == [
        f"{plan}:2: node 'node09' is not in the inventory",
        f"{plan}:3: node01 has no NIC 'bnxt_re9' (its NICs: bnxt_re0, bnxt_re1, bnxt_re2, bnxt_re3, bnxt_re4, bnxt_re5, bnxt_re6, bnxt_re7)",
        f"{plan}:4: switch: 'leaf 1' is not a valid name (expected a letter or digit, then letters, digits, '_', '.', '-'; at most 63 characters)",
        f"{plan}:6: node01/bnxt_re1 is planned twice (first at {plan}:5)",
    ]
    (tmp_path / "header.csv").write_text("host,port\n")
    with pytest.raises(ProblemsError, match="expected the header node,nic,switch,port"):
        load_cabling_plan(tmp_path / "header.csv", demo_inventory)


def test_gpufabric_checks_lists_cab_001_with_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks", "--json"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["CAB-001"]["tests"] == ["test_cabling.py::test_nic_cabled_as_planned"]
    assert rows["CAB-001"]["source"].startswith("S0 2.4.1 items 3, 6")
