"""Deviations (reading, matching, expiry), the merge of retests and the coverage verdict, on small plain data."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.inventory.signoff_sections import deviations_file_problems
from pytest_gpufabric.signoff.deviations import Deviation, DeviationSet, item_parts
from pytest_gpufabric.signoff.merge import merge_runs
from pytest_gpufabric.signoff.plan import Plan
from pytest_gpufabric.signoff.verdict import assess

CHECKS = frozenset({"DRV-001", "PERF-002", "LNK-005"})
TODAY = dt.date(2026, 11, 26)


def test_a_deviations_file_is_read_with_its_origin(tmp_path: Path) -> None:
    path = tmp_path / "deviations.yaml"
    path.write_text("deviations:\n- check: PERF-002\n  where: node01/bnxt_re2\n  reason: cable RMA 4711\n"
                    "  approved_by: J. Doe\n  date: 2026-11-20\n  expires: 2026-12-31\n", encoding="utf-8")

    problems, (deviation,) = deviations_file_problems(path, CHECKS)

    assert problems == []
    assert deviation == Deviation("PERF-002", "cable RMA 4711", "J. Doe", "2026-11-20", "node01/bnxt_re2", "2026-12-31",
                                  "deviations.yaml:2")


@pytest.mark.parametrize(("entry", "problem"), [
    ("- check: PERF-002\n  reason: r\n  date: 2026-11-20\n", "deviations[0].approved_by: missing"),
    ("- check: XYZ-001\n  reason: r\n  approved_by: a\n  date: 2026-11-20\n", "unknown check 'XYZ-001'"),
    ("- check: PERF-002\n  reason: r\n  approved_by: a\n  date: 20.11.2026\n", "is not a date (expected YYYY-MM-DD)"),
    ("- check: PERF-002\n  reason: r\n  approved_by: a\n  date: 2026-11-20\n  expires: 2026-11-01\n", "before the approval date"),
    ("- check: PERF-002\n  reason: r\n  approved_by: a\n  date: 2026-11-20\n  by: x\n", "unknown key"),
])
def test_a_bad_deviation_is_one_line_with_its_place(tmp_path: Path, entry: str, problem: str) -> None:
    path = tmp_path / "d.yaml"
    path.write_text("deviations:\n" + entry, encoding="utf-8")

    problems, deviations = deviations_file_problems(path, CHECKS)

    assert deviations == () and len(problems) == 1
    assert problems[0].startswith(f"{path}:") and problem in problems[0]


def test_where_matches_an_item_or_its_parts() -> None:
    deviation = Deviation("PERF-002", "r", "a", "2026-11-20", where="node01/bnxt_re2")

    assert item_parts("node01/bnxt_re2->node03/bnxt_re2")[:3] == ("node01/bnxt_re2->node03/bnxt_re2", "node01/bnxt_re2", "node01")
    assert deviation.matches("PERF-002", "node01/bnxt_re2->node03/bnxt_re2")
    assert not deviation.matches("PERF-002", "node01/bnxt_re3->node03/bnxt_re3")
    assert not deviation.matches("PERF-003", "node01/bnxt_re2->node03/bnxt_re2")
    assert Deviation("LNK-005", "r", "a", "2026-11-20", where="node0[12]").matches("LNK-005", "node02/bnxt_re7")


def test_an_expired_deviation_approves_nothing() -> None:
    expired = Deviation("DRV-001", "r", "a", "2026-10-01", expires="2026-11-01")
    current = Deviation("DRV-001", "r", "a", "2026-10-01", expires="2026-12-01")

    deviations = DeviationSet.of([expired, current], TODAY)

    assert deviations.expired == (expired,) and deviations.approving("DRV-001", "node01") is current


def rec(node_id: str, check: str, outcome: str, **extra: Any) -> dict[str, Any]:
    item = node_id.split("[", 1)[1][:-1]
    return {"node_id": f"t.py::{node_id}", "check_id": check, "item": item, "outcome": outcome, "message": outcome, **extra}


def pair(rail: int, outcome: str) -> dict[str, Any]:
    return {"pair": f"node01/n{rail}->node02/n{rail}", "rail": rail, "node_a": "node01", "nic_a": f"n{rail}",
            "node_b": "node02", "nic_b": f"n{rail}", "outcome": outcome, "message": f"rail {rail} {outcome}"}


def test_the_latest_result_wins_per_item_and_per_nic_pair() -> None:
    first = [rec("t_drv[node01]", "DRV-001", "failed"), rec("t_drv[node02]", "DRV-001", "passed"),
             rec("t_bw[node01->node02]", "PERF-002", "failed", pairs=[pair(0, "passed"), pair(1, "failed")])]
    retest = [rec("t_drv[node01]", "DRV-001", "passed"),
              rec("t_bw[node01->node02]", "PERF-002", "passed", pairs=[pair(1, "passed")]),
              rec("t_drv[node02]", "DRV-001", "skipped")]

    merged, (change,) = merge_runs([("r1", "d1", first), ("r2", "d2", retest)])

    by_item = {(r["check_id"], r["item"]): r for r in merged}
    assert by_item["DRV-001", "node01"]["outcome"] == "passed" and by_item["DRV-001", "node01"]["run_id"] == "r2"
    assert by_item["DRV-001", "node02"]["outcome"] == "passed"  # a skip in a retest does not undo a result
    bw = by_item["PERF-002", "node01->node02"]
    assert bw["outcome"] == "passed" and [p["outcome"] for p in bw["pairs"]] == ["passed", "passed"]
    assert change.run_id == "r2" and {(c.item, c.before, c.after) for c in change.changes} == {
        ("node01", "failed", "passed"), ("node01/n1->node02/n1", "failed", "passed")}


def plan() -> Plan:
    return Plan(pair_policy="all", not_required=[], switches={},
                checks={"DRV-001": {"scope": "node", "title": "t", "items": ["node01", "node02"]},
                        "PERF-002": {"scope": "nic_pair", "title": "t", "items": ["node01->node02"]}},
                nodes={name: {"profile": "p", "platform": "x", "gpus": 0, "nics": [["n0", 0], ["n1", 1]]}
                       for name in ("node01", "node02")})


def test_coverage_counts_required_items_and_nic_pairs() -> None:
    records = [rec("t_drv[node01]", "DRV-001", "passed"),
               rec("t_bw[node01->node02]", "PERF-002", "passed", pairs=[pair(0, "passed")])]

    verdict = assess(plan(), records, [], TODAY, True)

    assert (verdict.required, verdict.recorded, verdict.unrecorded) == (3, 1, 1)
    assert {(f.check_id, f.item, f.state) for f in verdict.findings} == {
        ("DRV-001", "node02", "missing"), ("PERF-002", "node01/n1->node02/n1", "missing")}
    assert verdict.line() == "not accepted: partial run: 1 of 3 required items; 1 required item skipped without a documented reason"


def test_approved_findings_accept_with_deviations_never_as_passed() -> None:
    records = [rec("t_drv[node01]", "DRV-001", "failed"), rec("t_drv[node02]", "DRV-001", "passed"),
               rec("t_bw[node01->node02]", "PERF-002", "failed", pairs=[pair(0, "passed"), pair(1, "failed")])]
    deviations = [Deviation("DRV-001", "r", "a", "2026-11-01", where="node01"),
                  Deviation("PERF-002", "r", "a", "2026-11-01", where="node01/n1")]

    verdict = assess(plan(), records, deviations, TODAY, True)

    assert verdict.accepted and verdict.line() == "accepted with 2 approved deviations"
    assert verdict.count("failed", approved=True) == 2 and verdict.count("failed") == 0
    assert not assess(plan(), records, deviations, TODAY, False).accepted  # the last run did not finish
