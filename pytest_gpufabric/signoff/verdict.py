"""The verdict of an acceptance: the plan against the (merged) records, with the approved deviations.

Every required item ends in one state: passed; failed; not measured (an error, also an item whose xdist
worker crashed); missing (never recorded: deselected, not selected, lost, never reached; or skipped for a
reason neither the profile nor the check documents, such as the soak not asked for); not applicable (the check
itself found it does not apply, e.g. a node pair mixing GPU vendors). A failed, unmeasured or missing item
that an unexpired deviation approves is a *deviation*, never a pass. "accepted" needs the last run finished,
every required item recorded, and nothing failed, unmeasured or missing except approved deviations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_gpufabric.reporting.acceptance.model import area_of, nodes_of
from pytest_gpufabric.signoff.deviations import Deviation, DeviationSet
from pytest_gpufabric.signoff.merge import record_key
from pytest_gpufabric.signoff.plan import Plan, fold, target_of_item

PASSED, FAILED, ERROR, MISSING, NOT_APPLICABLE = "passed", "failed", "error", "missing", "not applicable"
BAD = (FAILED, ERROR, MISSING)
STATE_WORDS = {FAILED: "failed", ERROR: "not measured", MISSING: "missing"}


@dataclass(frozen=True)
class Finding:
    """A required item (or a NIC pair of one) that did not pass, and the deviation approving it, if any."""

    check_id: str
    item: str  # the item, or the NIC pair of a node-pair item
    state: str  # failed, error, missing
    why: str  # the record's message, or why it is missing
    deviation: Deviation | None = None
    unit: str = ""  # the required item a NIC pair belongs to (empty: the item itself)


@dataclass(frozen=True)
class NodeVerdict:
    name: str
    accepted: bool
    failed: int
    unmeasured: int
    missing: int
    deviations: int
    areas: tuple[str, ...]


@dataclass
class Verdict:
    required: int  # required items of the plan
    recorded: int  # of which recorded (judged, or not applicable)
    findings: list[Finding]
    last_run_complete: bool
    deviations: DeviationSet
    outside: dict[str, int] = field(default_factory=dict)  # failed / error counts of items outside the plan
    not_applicable: int = 0
    unrecorded: int = 0  # required items never recorded (the rest of required - recorded were skipped)
    incomplete: str = ""  # why the last run is not complete ("the run was interrupted"), empty when it is
    failing_outliers: int = 0  # outliers passing their thresholds, of profiles whose outliers fail the run

    @property
    def open_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.deviation is None]

    @property
    def approved(self) -> list[Finding]:
        return [f for f in self.findings if f.deviation is not None]

    @property
    def used_deviations(self) -> list[Deviation]:
        seen: dict[Deviation, None] = {}
        for finding in self.approved:
            seen.setdefault(finding.deviation, None)  # type: ignore[arg-type]
        return list(seen)

    @property
    def accepted(self) -> bool:
        return self.last_run_complete and self.required > 0 and not self.open_findings and not self.failing_outliers

    def count(self, state: str, *, approved: bool | None = False) -> int:
        """Required items with a finding in ``state`` (a node-pair item counts once, whatever its NIC pairs)."""
        return len({(f.check_id, f.unit or f.item) for f in self.findings
                    if f.state == state and (approved is None or (f.deviation is not None) == approved)})

    @property
    def partial(self) -> bool:
        return self.recorded < self.required

    def missing_by_check(self) -> list[tuple[str, int, str]]:
        """(check, missing items, their nodes folded) of the open missing findings, in check order."""
        nodes: dict[str, set[str]] = defaultdict(set)
        items: dict[str, set[str]] = defaultdict(set)
        for finding in self.open_findings:
            if finding.state == MISSING:
                items[finding.check_id].add(finding.unit or finding.item)
                nodes[finding.check_id].update(nodes_of(target_of_item(finding.check_id, finding.item)))
        return [(check, len(items[check]), fold(nodes[check])) for check in sorted(items)]

    def line(self) -> str:
        """The verdict line of the cover, the terminal and pytest-html."""
        outside = self.outside_note()
        if self.accepted:
            used = len(self.used_deviations)
            return ("accepted" if not used else f"accepted with {used} approved deviation{'s' if used != 1 else ''}") + outside
        if self.required == 0:
            return "not accepted: the plan requires no item (no profile check applies to this inventory)"
        reasons = []
        if not self.last_run_complete:
            reasons.append(self.incomplete or "the run did not finish")
        skipped = self.required - self.recorded - self.unrecorded
        if self.unrecorded:
            reasons.append(f"partial run: {self.recorded:,} of {self.required:,} required items")
        if skipped:
            reasons.append(f"{skipped:,} required item{'s' if skipped != 1 else ''} skipped without a documented reason")
        bad = [f"{self.count(state):,} {STATE_WORDS[state]}" for state in (FAILED, ERROR) if self.count(state)]
        if bad:
            reasons.append(", ".join(bad))
        if self.failing_outliers:
            reasons.append(f"{self.failing_outliers:,} outliers (the profile fails outliers)")
        if self.approved:
            reasons.append(f"{len(self.used_deviations)} approved deviations")
        return "not accepted: " + "; ".join(reasons) + outside

    def outside_note(self) -> str:
        if not (self.outside.get(FAILED) or self.outside.get(ERROR)):
            return ""
        return f"; outside the profile's checks: {self.outside.get(FAILED, 0)} failed, {self.outside.get(ERROR, 0)} not measured"

    def node_verdicts(self, names: Iterable[str]) -> list[NodeVerdict]:
        """Per node (then each switch or cluster an item names): accepted or not, with counts and areas."""
        per: dict[str, dict[str, set[Any]]] = {}
        order = list(names)
        for finding in self.findings:
            unit = (finding.check_id, finding.unit or finding.item)  # a required item counts once per node
            for name in nodes_of(target_of_item(finding.check_id, finding.item)):
                entry = per.setdefault(name, {FAILED: set(), ERROR: set(), MISSING: set(), "deviation": set(), "areas": set()})
                if name not in order:
                    order.append(name)
                if finding.deviation is not None:
                    entry["deviation"].add(unit)
                else:
                    entry[finding.state].add(unit)
                    entry["areas"].add(area_of(finding.check_id))
        verdicts = []
        for name in order:
            entry = per.get(name, {FAILED: set(), ERROR: set(), MISSING: set(), "deviation": set(), "areas": set()})
            accepted = not (entry[FAILED] or entry[ERROR] or entry[MISSING])
            verdicts.append(NodeVerdict(name, accepted, len(entry[FAILED]), len(entry[ERROR]), len(entry[MISSING]),
                                        len(entry["deviation"]), tuple(sorted(entry["areas"]))))
        return verdicts


def _pair_states(plan: Plan, records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, tuple[str, str]]]:
    """(check, node pair) -> NIC pair -> (outcome, message) from node-pair records and per-NIC-pair records."""
    pair_checks = {c for c, spec in plan.checks.items() if spec["scope"] == "nic_pair"}
    states: dict[tuple[str, str], dict[str, tuple[str, str]]] = defaultdict(dict)
    for record in records:
        check, item = record_key(record)
        if check not in pair_checks:
            continue
        entries = record.get("pairs")
        if entries:
            for entry in entries:
                states[(check, item)][str(entry.get("pair"))] = (str(entry.get("outcome")), str(entry.get("message") or ""))
        elif item.count("/") == 2 and "->" in item:  # one record per NIC pair: filed under its node pair
            a, b = (end.split("/", 1)[0] for end in item.split("->"))
            states[(check, f"{a}->{b}")][item] = (str(record.get("outcome")), str(record.get("message") or ""))
        else:
            states[(check, item)]["*"] = (str(record.get("outcome")), str(record.get("message") or ""))
    return states


def _state(outcome: str, record: dict[str, Any]) -> str:
    if outcome in (PASSED, FAILED, ERROR):
        return outcome
    if outcome == "skipped" and record.get("not_applicable"):
        return NOT_APPLICABLE
    return MISSING


def assess(plan: Plan, records: list[dict[str, Any]], deviations: Iterable[Deviation], deviations_date: Any,
           last_run_complete: bool, incomplete: str = "") -> Verdict:
    """The verdict of ``records`` (merged, one per item) against ``plan`` with ``deviations`` in force on
    ``deviations_date``; ``incomplete`` says why the last run is not complete."""
    in_force = DeviationSet.of(deviations, deviations_date)
    by_key = {record_key(r): r for r in records}
    pair_states = _pair_states(plan, records)
    findings: list[Finding] = []
    recorded = not_applicable = unrecorded = 0
    planned: set[tuple[str, str]] = set()
    for check_id, spec in plan.checks.items():
        pair_check = spec["scope"] == "nic_pair"
        for item in spec["items"]:
            planned.add((check_id, item))
            if pair_check:
                found = _pair_findings(plan, check_id, item, pair_states.get((check_id, item)))
                if found is None:
                    unrecorded += 1
                    findings.append(Finding(check_id, item, MISSING, "never recorded"))
                    continue
                recorded += not any(f.state == MISSING for f in found)
                findings.extend(found)
                continue
            record = by_key.get((check_id, item))
            if record is None:
                unrecorded += 1
                findings.append(Finding(check_id, item, MISSING, "never recorded"))
                continue
            state = _state(str(record.get("outcome")), record)
            if state == NOT_APPLICABLE:
                not_applicable += 1
            if state != MISSING:
                recorded += 1
            if state in BAD:
                findings.append(Finding(check_id, item, state, _why(state, record)))
    if in_force.active:  # no deviation in force: nothing to look up for each of (at times) 100,000s of findings
        findings = [Finding(f.check_id, f.item, f.state, f.why, in_force.approving(f.check_id, f.item), f.unit)
                    for f in findings]
    outside = {FAILED: 0, ERROR: 0}
    for key, record in by_key.items():
        if key not in planned and key[0] not in plan.checks and record.get("outcome") in outside:
            outside[str(record["outcome"])] += 1
    return Verdict(plan.required_count, recorded, findings, last_run_complete, in_force, outside, not_applicable, unrecorded,
                   incomplete)


def _why(state: str, record: dict[str, Any]) -> str:
    message = str(record.get("message") or "")
    if state == MISSING:
        return f"skipped: {message.removeprefix('Skipped: ')}" if message else "skipped"
    return message.splitlines()[0] if message else state


def _pair_findings(plan: Plan, check_id: str, node_pair: str, states: dict[str, tuple[str, str]] | None) -> list[Finding] | None:
    """The findings of one node-pair item of a pair check (per NIC pair); None when nothing of it was recorded."""
    if not states:
        return None
    whole = states.get("*")
    expected = plan.nic_pairs(node_pair)
    findings = []
    for pair in expected or (node_pair,):
        outcome, message = states.get(pair, whole or ("missing", "never recorded"))
        state = outcome if outcome in (PASSED, FAILED, ERROR) else MISSING
        if state in BAD:
            why = message.splitlines()[0].removeprefix("Skipped: ") if message else state
            findings.append(Finding(check_id, pair, state, f"skipped: {why}" if outcome == "skipped" else why, None, node_pair))
    return findings
