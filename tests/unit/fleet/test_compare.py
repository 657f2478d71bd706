"""Run-to-run comparison: regressions and improvements beyond the tolerance, outcome changes, appeared and vanished."""

from __future__ import annotations

from typing import Any

import pandas as pd

from pytest_gpufabric.fleet.compare import CATEGORIES, RunValues, compare


def value(name: str, where: str, measured: Any, op: str = ">=", unit: str = "Gb/s") -> dict[str, Any]:
    return {"name": name, "where": where, "measured": measured, "op": op, "unit": unit, "passed": True}


def pair_record(node_pair: str, bandwidth: dict[int, float], outcome: str = "passed") -> dict[str, Any]:
    a, b = node_pair.split("->")
    entries = [{"pair": f"{a}/re{r}->{b}/re{r}", "rail": r, "outcome": "passed" if v >= 380 else "failed",
                "measurements": [value("average_bw_gbps", f"{a}/re{r}->{b}/re{r}", v)]} for r, v in bandwidth.items()]
    return {"node_id": f"t::bw[{node_pair}]", "check_id": "PERF-002", "item": node_pair, "outcome": outcome, "pairs": entries,
            "measurements": []}


def item_record(item: str, measurements: list[dict[str, Any]], outcome: str = "passed", check: str = "DRV-004") -> dict[str, Any]:
    return {"node_id": f"t::{check}[{item}]", "check_id": check, "item": item, "outcome": outcome,
            "measurements": measurements}


def run(*records: dict[str, Any]) -> RunValues:
    values = RunValues()
    for record in records:
        values.take(record)
    return values


def five_percent(items: pd.Series) -> pd.Series:
    return pd.Series(0.05, index=items.index)


def test_identical_runs_have_no_difference() -> None:
    records = (pair_record("n1->n2", {0: 775.0, 1: 774.0}), item_record("n1/re0", [value("firmware_version", "n1/re0", "232.1", "version==", "")]))
    found = compare(run(*records), run(*records), five_percent)

    assert found.rows.empty and found.counts() == dict.fromkeys(CATEGORIES, 0) and not found.worse


def test_each_kind_of_difference() -> None:
    old = run(pair_record("n1->n2", {0: 775.0, 1: 774.0, 2: 770.0}), pair_record("n1->n3", {0: 775.0}),
              item_record("n1/re0", [value("firmware_version", "n1/re0", "232.1", "version==", "")]),
              item_record("n2", [value("latency_us", "n2", 3.0, "<=", "us")], check="PERF-007"),
              item_record("n4", [], outcome="failed", check="HOST-001"))
    new = run(pair_record("n1->n2", {0: 658.0, 1: 770.0, 2: 300.0}, outcome="failed"),
              item_record("n1/re0", [value("firmware_version", "n1/re0", "233.0", "version==", "")]),
              item_record("n2", [value("latency_us", "n2", 2.5, "<=", "us")], check="PERF-007"),
              item_record("n4", [], check="HOST-001"), item_record("n5", [], check="HOST-001"))

    found = compare(old, new, five_percent)
    rows = {category: found.of(category) for category in CATEGORIES}

    assert rows["regressions"]["pair"].tolist() == ["n1/re2->n2/re2", "n1/re0->n2/re0"]  # worst first; rail 1 within 5 %
    assert rows["regressions"]["change"].tolist() == [(300 - 770) / 770, (658 - 775) / 775]
    assert rows["improvements"][["item", "old", "new"]].values.tolist() == [["n2", 3.0, 2.5]]  # latency down is better
    assert rows["new failures"][["node_id", "pair"]].values.tolist() == [["t::bw[n1->n2]", ""], ["t::bw[n1->n2]", "n1/re2->n2/re2"]]
    assert rows["fixed failures"]["item"].tolist() == ["n4"]
    assert rows["appeared"]["item"].tolist() == ["n5"]
    assert sorted(rows["vanished"]["pair"]) == ["", "n1/re0->n3/re0"]
    assert rows["changed"][["old", "new"]].values.tolist() == [["'232.1'", "'233.0'"]]
    assert found.worse
