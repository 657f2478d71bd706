"""The verdict's counts (per state, per node, missing per check) count each required item once, whatever the
mix of its findings: items with one finding, node-pair items with several NIC-pair findings, some of them approved.
Checked against the definitions written out plainly (sets of required items) on a random mix of findings."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from pytest_gpufabric.reporting.acceptance.model import area_of, nodes_of
from pytest_gpufabric.signoff.deviations import Deviation, DeviationSet
from pytest_gpufabric.signoff.plan import fold
from pytest_gpufabric.signoff.verdict import ERROR, FAILED, MISSING, Finding, NodeVerdict, Verdict

APPROVAL = Deviation("PERF-002", "cable RMA", "J. Doe", "2026-11-20")
NODES = [f"node{index:02d}" for index in range(1, 7)]


def _findings(seed: int) -> list[Finding]:
    """Items with one finding (node, NIC, node pair never recorded) and node-pair items judged per NIC pair."""
    pick = random.Random(seed)
    findings = []
    for node in NODES:
        for check in ("DRV-001", "LNK-005"):
            if pick.random() < 0.5:
                state = pick.choice((FAILED, ERROR, MISSING))
                findings.append(Finding(check, f"{node}/bnxt_re{pick.randrange(2)}" if check == "LNK-005" else node,
                                        state, "why", APPROVAL if pick.random() < 0.2 else None))
    for a, b in ((a, b) for i, a in enumerate(NODES) for b in NODES[i + 1:]):
        roll = pick.random()
        if roll < 0.3:
            findings.append(Finding("PERF-002", f"{a}->{b}", MISSING, "never recorded"))
        elif roll < 0.8:
            for rail in range(pick.randrange(1, 4)):
                findings.append(Finding("PERF-002", f"{a}/bnxt_re{rail}->{b}/bnxt_re{rail}", pick.choice((FAILED, ERROR, MISSING)),
                                        "why", APPROVAL if pick.random() < 0.3 else None, f"{a}->{b}"))
    return findings


def _verdict(findings: list[Finding]) -> Verdict:
    return Verdict(100, 40, findings, True, DeviationSet((APPROVAL,), ()))


def _unit(finding: Finding) -> tuple[str, str]:
    return finding.check_id, finding.unit or finding.item


@pytest.mark.parametrize("seed", range(20))
def test_each_required_item_counts_once_per_state(seed: int) -> None:
    findings = _findings(seed)
    verdict = _verdict(findings)
    for state in (FAILED, ERROR, MISSING):
        for approved in (False, True, None):
            expected = {_unit(f) for f in findings
                        if f.state == state and (approved is None or (f.deviation is not None) == approved)}
            assert verdict.count(state, approved=approved) == len(expected), (state, approved)


@pytest.mark.parametrize("seed", range(20))
def test_each_node_counts_each_required_item_once(seed: int) -> None:
    findings = _findings(seed)
    per: dict[str, dict[str, set[object]]] = defaultdict(lambda: defaultdict(set))
    for finding in findings:
        for name in nodes_of(finding.item):
            column = "deviation" if finding.deviation is not None else finding.state
            per[name][column].add(_unit(finding))
            if finding.deviation is None:
                per[name]["areas"].add(area_of(finding.check_id))
    expected = [NodeVerdict(name, not (per[name][FAILED] or per[name][ERROR] or per[name][MISSING]),
                            len(per[name][FAILED]), len(per[name][ERROR]), len(per[name][MISSING]),
                            len(per[name]["deviation"]), tuple(sorted(per[name]["areas"]))) for name in [*NODES, "leaf01"]]

    assert _verdict(findings).node_verdicts([*NODES, "leaf01"]) == expected


@pytest.mark.parametrize("seed", range(20))
def test_missing_items_per_check_are_counted_once_with_their_nodes(seed: int) -> None:
    findings = _findings(seed)
    items: dict[str, set[str]] = defaultdict(set)
    nodes: dict[str, set[str]] = defaultdict(set)
    for finding in findings:
        if finding.state == MISSING and finding.deviation is None:
            items[finding.check_id].add(finding.unit or finding.item)
            nodes[finding.check_id].update(nodes_of(finding.item))

    assert _verdict(findings).missing_by_check() == [(check, len(items[check]), fold(nodes[check])) for check in sorted(items)]


def test_accepted_only_without_open_findings() -> None:
    approved_only = [Finding("PERF-002", "node01/bnxt_re0->node02/bnxt_re0", FAILED, "low", APPROVAL, "node01->node02")]
    assert _verdict(approved_only).accepted
    assert _verdict(approved_only).used_deviations == [APPROVAL]
    assert not _verdict([*approved_only, Finding("DRV-001", "node03", MISSING, "never recorded")]).accepted
