"""Outliers: values worse than the median of their peers by k robust deviations and the minimum gap."""

from __future__ import annotations

import itertools
import random

import pandas as pd
import pytest

from pytest_gpufabric.fleet.outliers import PeerGroups, item_outliers, pair_outliers
from pytest_gpufabric.fleet.rules import OutlierRule
from pytest_gpufabric.reporting.acceptance.pairs import PAIR_COLUMNS

RULE = OutlierRule("warn", 3.5, 0.05, 5, "test rule")
NODES = [f"n{i:02d}" for i in range(1, 17)]


def pairs(value_of, *, op: str = ">=", unit: str = "Gb/s", metric: str = "average_bw_gbps", rail: int = 0) -> pd.DataFrame:
    """Every pair of NODES on one rail; ``value_of(a, b)`` its value."""
    rows = [("PERF-002", metric, unit, op, 380, f"{op} 380", "S4", rail, a, f"re{rail}", b, f"re{rail}", value_of(a, b),
             True, f"t[{a}->{b}]") for a, b in itertools.combinations(NODES, 2)]
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


def noisy(base: float, seed: int = 3):
    rng = random.Random(seed)
    return lambda a, b: round(base * (1 + rng.uniform(-0.01, 0.01)), 2)


def rules(name: str) -> OutlierRule | None:
    return RULE


PEERS = PeerGroups("p", {}, {})


def test_a_nic_at_85_percent_of_its_peers_is_an_outlier_with_every_partner() -> None:
    healthy = noisy(775.0)
    frame = pairs(lambda a, b: round(healthy(a, b) * (0.85 if "n08" in (a, b) else 1.0), 2))

    found = pair_outliers(frame, PEERS, rules).found

    assert len(found) == 15 and set(found["item"].str.contains("n08/re0")) == {True}
    assert found["passed"].all() and (found["gap"] > 0.13).all() and (found["score"] > 3.5).all()
    assert found["group"].unique().tolist() == ["p"] and found["verdict"].unique().tolist() == ["warn"]


def test_noise_alone_is_no_outlier() -> None:
    judgement = pair_outliers(pairs(noisy(775.0)), PEERS, rules)

    assert judgement.found.empty and not judgement.outlier.any()
    assert (judgement.gap.abs() < 0.025).all()


def test_a_gap_below_the_minimum_is_no_outlier_even_far_out_in_deviations() -> None:
    frame = pairs(lambda a, b: 760.0 if (a, b) == ("n01", "n02") else 775.0)  # MAD 0: 15 deviations "infinite"

    assert pair_outliers(frame, PEERS, rules).found.empty  # 2 % worse: under min_gap
    frame = pairs(lambda a, b: 700.0 if (a, b) == ("n01", "n02") else 775.0)
    assert pair_outliers(frame, PEERS, rules).found["item"].tolist() == ["n01/re0 <-> n02/re0"]


def test_latency_is_worse_upwards() -> None:
    frame = pairs(lambda a, b: 3.5 if "n05" in (a, b) else 2.9, op="<=", unit="us", metric="typical_latency_us")
    found = pair_outliers(frame, PEERS, rules).found

    assert len(found) == 15 and (found["value"] == 3.5).all() and found["gap"].tolist() == pytest.approx([0.6 / 2.9] * 15)
    better = pairs(lambda a, b: 2.0 if "n05" in (a, b) else 2.9, op="<=", unit="us", metric="typical_latency_us")
    assert pair_outliers(better, PEERS, rules).found.empty


def test_too_few_peers_or_no_rule_judge_nothing() -> None:
    frame = pairs(lambda a, b: 600.0 if "n03" in (a, b) else 775.0).head(4)

    assert pair_outliers(frame, PEERS, rules).found.empty
    assert pair_outliers(pairs(lambda a, b: 600.0 if "n03" in (a, b) else 775.0), PEERS, lambda _: None).found.empty


def test_peers_are_grouped_by_profile_and_path() -> None:
    leaves = {f"{n}/re0": ("leaf1" if n <= "n08" else "leaf2") for n in NODES}
    profiles = {n: "vm" for n in NODES[12:]}
    frame = pairs(lambda a, b: 775.0)
    label, profile = PeerGroups("p", profiles, leaves).of_pairs(frame)
    by_pair = dict(zip(frame["node_a"] + "-" + frame["node_b"], label))

    assert by_pair["n01-n02"] == "p, same leaf" and by_pair["n01-n09"] == "p, across leaves"
    assert by_pair["n01-n13"] == "p + vm, across leaves" and by_pair["n13-n14"] == "vm, same leaf"
    assert profile[frame["node_a"] == "n13"].unique().tolist() == ["vm"]


def test_item_values_have_outliers_too() -> None:
    values = pd.DataFrame([("COLL-001", "busbw_8gb_gbs", "GB/s", ">=", -1, node, node, node, 330.0 if node == "n04" else 380.0,
                            True, f"t[{node}]") for node in NODES],
                          columns=["check_id", "metric", "unit", "op", "rail", "node", "item", "where", "value", "passed", "node_id"])

    found = item_outliers(values, PEERS, rules)

    assert found["item"].tolist() == ["n04"] and found["kind"].tolist() == ["item"]


def test_a_switch_ports_peers_are_the_ports_of_its_switch() -> None:
    ports = [("leaf1" if i < 9 else "leaf2", f"{'leaf1' if i < 9 else 'leaf2'}/Ethernet{i}") for i in range(14)]
    values = pd.DataFrame([("NSW-003", "port_mtu_above_nic_mtu", "bytes", ">=", -1, switch, port, port,
                            100.0 if switch == "leaf2" else 200.0, True, f"t[{port}]") for switch, port in ports],
                          columns=["check_id", "metric", "unit", "op", "rail", "node", "item", "where", "value", "passed", "node_id"])
    leaves = {"n01/re0": "leaf1", "n02/re0": "leaf2"}

    assert item_outliers(values, PeerGroups("p", {}, leaves), rules).empty  # leaf2 configured otherwise, alike
    assert len(item_outliers(values, PEERS, rules)) == 5  # had they been peers of leaf1's ports
