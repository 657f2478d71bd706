"""Pair selection policies."""

from __future__ import annotations

from itertools import combinations

import pytest

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.scheduling import (
    all_pairs,
    circle_rounds,
    explicit_pairs,
    round_robin_pairs,
    same_leaf_pairs,
    select_pairs,
)
from tests.unit.scheduling.helpers import node_names


def test_all_pairs_is_every_pair_in_round_order() -> None:
    nodes = node_names(6)
    pairs = all_pairs(nodes)
    assert sorted(pairs) == sorted(combinations(nodes, 2))
    assert pairs[:3] == circle_rounds(nodes)[0]


@pytest.mark.parametrize("rounds", [1, 2, 5])
def test_round_robin_gives_each_node_k_partners(rounds: int) -> None:
    nodes = node_names(8)
    pairs = round_robin_pairs(nodes, rounds)
    assert len(pairs) == rounds * 4
    for node in nodes:
        assert sum(node in pair for pair in pairs) == rounds


def test_round_robin_more_rounds_than_exist_is_all_pairs() -> None:
    assert round_robin_pairs(node_names(4), 10) == all_pairs(node_names(4))


def test_round_robin_needs_a_round() -> None:
    with pytest.raises(UsageError, match="at least 1 round"):
        round_robin_pairs(node_names(4), 0)


def test_same_leaf_pairs() -> None:
    switch_of = {"node01": "leaf1", "node02": "leaf2", "node03": "leaf1", "node04": "leaf2", "node05": "leaf1"}
    pairs = same_leaf_pairs(list(switch_of), switch_of)
    assert len(pairs) == 4
    assert set(map(frozenset, pairs)) == set(map(frozenset, [
        ("node01", "node03"), ("node01", "node05"), ("node03", "node05"), ("node02", "node04")]))
    assert all(switch_of[a] == switch_of[b] for a, b in pairs)


def test_same_leaf_unknown_node() -> None:
    with pytest.raises(UsageError, match="no leaf switch known for node02"):
        same_leaf_pairs(["node01", "node02"], {"node01": "leaf1"})


def test_explicit_pairs_deduplicated_in_order() -> None:
    nodes = node_names(4)
    pairs = explicit_pairs(nodes, [("node02", "node01"), ("node01", "node02"), ("node03", "node04")])
    assert pairs == [("node02", "node01"), ("node03", "node04")]


@pytest.mark.parametrize(("pairs", "message"), [
    ([("node01", "node09")], "node09, not in the inventory"),
    ([("node01", "node01")], "with itself"),
])
def test_explicit_pairs_refused(pairs: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        explicit_pairs(node_names(4), pairs)


@pytest.mark.parametrize(("policy", "kwargs", "expected_count"), [
    ("all", {}, 15),
    ("round-robin", {"rounds": 2}, 6),
    ("same-leaf", {"switch_of": {f"node0{i}": "leaf" + str(i % 2) for i in range(1, 7)}}, 6),
    ("explicit", {"pairs": [("node01", "node02")]}, 1),
])
def test_select_pairs_dispatch(policy: str, kwargs: dict, expected_count: int) -> None:
    assert len(select_pairs(policy, node_names(6), **kwargs)) == expected_count


@pytest.mark.parametrize(("policy", "message"), [("round-robin", "number of rounds"), ("same-leaf", "leaf switch"),
                                                 ("explicit", "list of pairs"), ("random", "unknown pair selection")])
def test_select_pairs_missing_argument(policy: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        select_pairs(policy, node_names(4))
