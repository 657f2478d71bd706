"""One verdict per NIC pair of a node-pair item: the results record of each pair and the item's message.

A pair's record (the ``pairs`` entries of ``results.jsonl``): pair, rail, ends, outcome (passed, failed,
error), the worst judged value with its expectation, source and hint, its message and every measurement.
The item fails naming each failing rail, e.g.
``rail 2: node01/bnxt_re2 <-> node03/bnxt_re2 312.4 Gb/s < 380``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_gpufabric.targets import NicPairTarget
from pytest_gpufabric.verdict import Measurement, measurement_lines

NEGATED_OP = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!=", "!=": "==", "in": "not in"}
LOWER_IS_WORSE = (">=", ">")
HIGHER_IS_WORSE = ("<=", "<")


def worst(measurements: Sequence[Measurement]) -> Measurement | None:
    """The failing value farthest on the wrong side (the first failing one for non-numeric checks), else
    the weakest passing value, else None."""
    failed = [m for m in measurements if not m.passed]
    pool = failed or list(measurements)
    if not pool:
        return None
    numeric = [m for m in pool if isinstance(m.measured, (int, float)) and not isinstance(m.measured, bool)]
    if numeric and pool[0].op in LOWER_IS_WORSE:
        return min(numeric, key=lambda m: m.measured)
    if numeric and pool[0].op in HIGHER_IS_WORSE:
        return max(numeric, key=lambda m: m.measured)
    return pool[0]


def pair_label(pair: NicPairTarget) -> str:
    return f"rail {pair.nic_a.rail}: {pair.node_a.name}/{pair.nic_a.name} <-> {pair.node_b.name}/{pair.nic_b.name}"


def _value_text(measurement: Measurement) -> str:
    unit = f" {measurement.unit}" if measurement.unit else ""
    threshold = measurement.threshold if not isinstance(measurement.threshold, (list, tuple)) else list(measurement.threshold)
    return f"{measurement.measured}{unit} {NEGATED_OP.get(measurement.op, 'vs')} {threshold}"


def pair_record(pair: NicPairTarget, measurements: Sequence[Measurement], *, error: str | None, hint: str | None,
                check_source: str) -> dict[str, Any]:
    """The results entry of one NIC pair (plain data)."""
    decisive = worst(measurements)
    outcome = "error" if error else ("failed" if any(not m.passed for m in measurements) else "passed")
    if outcome == "error":
        message = f"{pair_label(pair)} not measured: {error}"
    elif outcome == "failed":
        assert decisive is not None
        message = f"{pair_label(pair)} {_value_text(decisive)}"
    else:
        message = None
    return {
        "pair": pair.id, "rail": pair.nic_a.rail,
        "node_a": pair.node_a.name, "nic_a": pair.nic_a.name, "node_b": pair.node_b.name, "nic_b": pair.nic_b.name,
        "outcome": outcome,
        "measured": decisive.measured if decisive else None,
        "expected": decisive.expected if decisive else None,
        "unit": decisive.unit if decisive else None,
        "source": decisive.source if decisive else check_source,
        "hint": hint if outcome != "passed" else None,
        "message": message,
        "measurements": [m.as_record() for m in measurements],
    }


def skipped_pair_record(pair: NicPairTarget, reason: str, check_source: str) -> dict[str, Any]:
    """The results entry of a NIC pair whose node-pair item was skipped (soak not asked for, not applicable)."""
    record = pair_record(pair, (), error=None, hint=None, check_source=check_source)
    record.update(outcome="skipped", message=reason)
    return record


def rails_message(check_id: str, title: str, target_id: str, records: Sequence[dict[str, Any]],
                  failed: dict[str, list[Measurement]], hint: str | None) -> str:
    """The item's message: one line per failing or unmeasured rail, then each failing value with its source."""
    bad = [record for record in records if record["outcome"] != "passed"]
    verdict = "FAILED" if any(record["outcome"] == "failed" for record in bad) else "ERROR"
    lines = [f"{check_id} {title}: {verdict} at {target_id} ({len(bad)} of {len(records)} rails)"]
    for record in bad:
        lines.append(f"  {record['message']}")
        for m in failed.get(record["pair"], []):
            lines.extend(measurement_lines(m, "    "))
    if hint:
        lines.append(f"  hint: {hint}")
    return "\n".join(lines)
