"""NIC-pair values of a run, from both kinds of records: per-NIC-pair items (one record per pair, the value
in ``measurements``) and node-pair items (a ``pairs`` list, one entry per NIC pair with its rail, worst value
and outcome). Node-pair checks without a ``pairs`` list that judge every NIC pair at once (PERF-006) name
each pair in their measurements' ``where``.

A pair value is the worst of its judged values (both directions): the lowest where higher is better."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

PAIR_UNITS = frozenset({"Gb/s", "us"})  # bandwidth and latency: what the pair matrices show
LOWER_IS_BETTER_OPS = frozenset({"<=", "<"})
PAIR_COLUMNS = ("check_id", "metric", "unit", "op", "threshold", "expected", "source", "rail",
                "node_a", "nic_a", "node_b", "nic_b", "value", "passed", "node_id")


def parse_nic_pair(text: str) -> tuple[str, str] | None:
    """The two NIC ids of ``node01/bnxt_re2->node03/bnxt_re2`` (anything after the first blank ignored); None
    for anything else (a node pair, a NIC-GPU pair)."""
    ends = text.split(" ", 1)[0].split("->")
    if len(ends) != 2:
        return None
    for end in ends:
        node, slash, nic = end.partition("/")
        if not slash or not node or not nic or "/" in nic or "~" in nic:
            return None
    return ends[0], ends[1]


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _worst(measurements: list[dict[str, Any]]) -> dict[str, Any]:
    lower_better = measurements[0].get("op") in LOWER_IS_BETTER_OPS
    return (max if lower_better else min)(measurements, key=lambda m: float(m["measured"]))


def _pair_metrics(measurements: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str, str], list[dict[str, Any]]]:
    """Numeric pair measurements grouped by (metric, unordered pair a, b)."""
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for m in measurements:
        if m.get("unit") not in PAIR_UNITS or _numeric(m.get("measured")) is None:
            continue
        ends = parse_nic_pair(str(m.get("where", "")))
        if ends is None:
            continue
        a, b = sorted(ends)
        groups.setdefault((str(m["name"]), a, b, str(m.get("unit"))), []).append(m)
    return groups


def _pair_key(where: Any) -> tuple[str, str] | None:
    ends = parse_nic_pair(str(where or ""))
    return None if ends is None else (min(ends), max(ends))


def _verdicts(pair_id: Any, measurements: list[dict[str, Any]], outcome: str | None) -> dict[tuple[str, str], bool]:
    """Per unordered pair: every judged value of the pair held (any metric), and the item's own outcome
    where the item is that one pair (a direction that errored out leaves no bandwidth but fails the pair)."""
    verdicts: dict[tuple[str, str], bool] = {}
    for m in measurements:
        key = _pair_key(m.get("where"))
        if key is not None:
            verdicts[key] = verdicts.get(key, True) and bool(m.get("passed"))
    own = _pair_key(pair_id)
    if own is not None and outcome is not None:
        verdicts[own] = verdicts.get(own, True) and outcome == "passed"
    return verdicts


def _rows(record: dict[str, Any], measurements: list[dict[str, Any]], rails: dict[str, int],
          outcome: str | None = None) -> Iterator[tuple[Any, ...]]:
    metrics = _pair_metrics(measurements)
    if not metrics:
        return
    verdicts = _verdicts(record.get("item"), measurements, outcome)
    for (metric, a_id, b_id, unit), group in metrics.items():
        worst = _worst(group)
        node_a, _, nic_a = a_id.partition("/")
        node_b, _, nic_b = b_id.partition("/")
        pair_rail = rails.get(a_id, rails.get(b_id))
        yield (record.get("check_id"), metric, unit, worst.get("op"), worst.get("threshold"), worst.get("expected"),
               worst.get("source"), pair_rail if pair_rail is not None else nic_a, node_a, nic_a, node_b, nic_b,
               float(worst["measured"]), verdicts.get((a_id, b_id), True), record.get("node_id"))


def pair_rows(records: Iterable[dict[str, Any]], rails: dict[str, int]) -> list[tuple[Any, ...]]:
    """One row (see ``PAIR_COLUMNS``) per check, metric and NIC pair; the rail is the inventory's, else the NIC name."""
    return [row for record in records for row in record_pair_rows(record, rails)]


def record_pair_rows(record: dict[str, Any], rails: dict[str, int]) -> Iterator[tuple[Any, ...]]:
    """The pair rows of one record (none for a record that names no NIC pair)."""
    entries = record.get("pairs")
    if entries:
        check_id, node_id = record.get("check_id"), record.get("node_id")
        for entry in entries:
            row = _entry_row(check_id, node_id, entry)
            if row is not None:
                yield row
    else:
        yield from _rows(record, list(record.get("measurements") or ()), rails, outcome=record.get("outcome"))


def entry_metric(entry: dict[str, Any]) -> tuple[dict[str, Any], float] | None:
    """The measurement a node-pair entry's value comes from, and the value: the entry's own when it is a
    bandwidth or latency, else the worst of its measurements; None for an unmeasured pair."""
    measured = entry.get("measured")
    measurements = entry.get("measurements") or ()
    if entry.get("unit") in PAIR_UNITS and _numeric(measured) is not None:
        for m in measurements:
            if m.get("measured") == measured:
                return m, float(measured)
        return {}, float(measured)
    numeric = [m for m in measurements if m.get("unit") in PAIR_UNITS and _numeric(m.get("measured")) is not None]
    if not numeric:
        return None
    worst = _worst(numeric)
    return worst, float(worst["measured"])


def entry_ends(entry: dict[str, Any]) -> tuple[Any, str, str, str, str]:
    """(rail, node_a, nic_a, node_b, nic_b) of a node-pair entry, the ends in name order; the rail is the entry's,
    else the first NIC's name."""
    end_a, end_b = (str(entry.get("node_a")), str(entry.get("nic_a"))), (str(entry.get("node_b")), str(entry.get("nic_b")))
    (node_a, nic_a), (node_b, nic_b) = (end_a, end_b) if end_a <= end_b else (end_b, end_a)
    rail = entry.get("rail")
    return (rail if rail is not None else nic_a), node_a, nic_a, node_b, nic_b


def entry_static(check_id: Any, entry: dict[str, Any], metric: dict[str, Any]) -> tuple[Any, ...]:
    """(check_id, metric, unit, op, threshold, expected, source) of a node-pair entry's row."""
    get = metric.get
    return (check_id, get("name", "value"), get("unit", entry.get("unit")), get("op"), get("threshold"),
            get("expected", entry.get("expected")), get("source", entry.get("source")))


def _entry_row(check_id: Any, node_id: Any, entry: dict[str, Any]) -> tuple[Any, ...] | None:
    """A node-pair record's NIC pair as one row: its outcome and its worst bandwidth or latency value."""
    found = entry_metric(entry)
    if found is None:
        return None
    metric, value = found
    return (*entry_static(check_id, entry, metric), *entry_ends(entry), value, entry.get("outcome") == "passed", node_id)
