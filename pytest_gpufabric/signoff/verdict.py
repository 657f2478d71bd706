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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pytest_gpufabric.reporting.acceptance.load import cycle_collector_paused
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

    @cached_property
    def used_deviations(self) -> list[Deviation]:
        seen: dict[Deviation, None] = {}
        for finding in self.findings:
            if finding.deviation is not None:
                seen.setdefault(finding.deviation, None)
        return list(seen)

    @property
    def accepted(self) -> bool:
        return (self.last_run_complete and self.required > 0 and not self.failing_outliers
                and not any(f.deviation is None for f in self.findings))

    @cached_property
    def _tally(self) -> _Tally:
        """Every finding counted once, under (state, approved)."""
        return _Tally.of(self.findings, lambda finding: (finding.state, finding.deviation is not None))

    def count(self, state: str, *, approved: bool | None = False) -> int:
        """Required items with a finding in ``state`` (a node-pair item counts once, whatever its NIC pairs)."""
        if approved is None:  # a node-pair item with approved and open NIC pairs counts once
            return (self._tally.count((state, False)) + self._tally.count((state, True))
                    - self._tally.shared((state, False), (state, True)))
        return self._tally.count((state, approved))

    @property
    def partial(self) -> bool:
        return self.recorded < self.required

    def missing_by_check(self) -> list[tuple[str, int, str]]:
        """(check, missing items, their nodes folded) of the open missing findings, in check order."""
        named = _NodesNamed()
        tally = _Tally()
        nodes: dict[str, set[str]] = defaultdict(set)
        for finding in self.findings:
            if finding.state == MISSING and finding.deviation is None:
                tally.add(finding.check_id, finding)
                nodes[finding.check_id].update(named(finding))
        return [(check, tally.count(check), fold(nodes[check])) for check in sorted(nodes)]

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
        named = _NodesNamed()
        tally = _Tally()  # a required item counts once per node
        areas: dict[str, set[str]] = defaultdict(set)
        order = dict.fromkeys(names)
        for finding in self.findings:
            column = "deviation" if finding.deviation is not None else finding.state
            for name in named(finding):
                tally.add((name, column), finding)
                if column != "deviation":
                    areas[name].add(finding.check_id)
        for name in named.names():
            order.setdefault(name)
        verdicts = []
        for name in order:
            failed, unmeasured, missing = (tally.count((name, state)) for state in (FAILED, ERROR, MISSING))
            verdicts.append(NodeVerdict(name, not (failed or unmeasured or missing), failed, unmeasured, missing,
                                        tally.count((name, "deviation")),
                                        tuple(sorted({area_of(check) for check in areas.get(name, ())}))))
        return verdicts


class _NodesNamed:
    """The nodes (switches, cluster) a finding's item names, each item's target read once."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[str, ...]] = {}

    def __call__(self, finding: Finding) -> tuple[str, ...]:
        target = target_of_item(finding.check_id, finding.item)
        found = self._known.get(target)
        if found is None:
            found = self._known[target] = nodes_of(target)
        return found

    def names(self) -> Iterator[str]:
        """Every name read so far, in the order first read."""
        return iter(dict.fromkeys(name for names in self._known.values() for name in names))


class _Tally:
    """Required items counted once under each of their keys. An item with one finding (every item but a node-pair
    item judged per NIC pair) is counted; the node-pair items of NIC-pair findings are kept in sets. Millions of
    missing items at 1,000 nodes then need no set of millions."""

    def __init__(self) -> None:
        self._whole: dict[Any, int] = defaultdict(int)
        self._parts: dict[Any, set[tuple[str, str]]] = defaultdict(set)

    @classmethod
    def of(cls, findings: Iterable[Finding], key: Callable[[Finding], Any]) -> _Tally:
        tally = cls()
        for finding in findings:
            tally.add(key(finding), finding)
        return tally

    def add(self, key: Any, finding: Finding) -> None:
        if finding.unit:
            self._parts[key].add((finding.check_id, finding.unit))
        else:
            self._whole[key] += 1

    def count(self, key: Any) -> int:
        return self._whole.get(key, 0) + len(self._parts.get(key, ()))

    def shared(self, key: Any, other: Any) -> int:
        """Node-pair items counted under both keys."""
        return len(self._parts.get(key, set()) & self._parts.get(other, set()))


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
    with cycle_collector_paused():  # millions of findings at 1,000 nodes, none of them in a cycle
        return _assess(plan, records, deviations, deviations_date, last_run_complete, incomplete)


def _assess(plan: Plan, records: list[dict[str, Any]], deviations: Iterable[Deviation], deviations_date: Any,
            last_run_complete: bool, incomplete: str) -> Verdict:
    in_force = DeviationSet.of(deviations, deviations_date)
    by_key = {record_key(r): r for r in records}
    pair_states = _pair_states(plan, records)
    findings: list[Finding] = []
    recorded = not_applicable = unrecorded = 0
    for check_id, spec in plan.checks.items():
        pair_check = spec["scope"] == "nic_pair"
        for item in spec["items"]:
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
        if key[0] not in plan.checks and record.get("outcome") in outside:
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
