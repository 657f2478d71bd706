"""Circle-method rounds: coverage, disjointness, round counts against the lower bound, rails."""

from __future__ import annotations

from itertools import combinations, permutations

import pytest

from pytest_gpufabric.scheduling import circle_rounds, directed_rounds, lower_bound_rounds, rail_rounds
from tests.unit.scheduling.helpers import assert_disjoint, node_names


@pytest.mark.parametrize("count", [2, 3, 4, 5, 8, 9, 16, 17, 64])
def test_every_pair_exactly_once_in_disjoint_rounds(count: int) -> None:
    nodes = node_names(count)
    rounds = circle_rounds(nodes)
    pairs = [pair for round_pairs in rounds for pair in round_pairs]
    assert len(pairs) == count * (count - 1) // 2
    assert {frozenset(p) for p in pairs} == {frozenset(p) for p in combinations(nodes, 2)}
    assert_disjoint(rounds)
    assert len(rounds) == lower_bound_rounds(count)


@pytest.mark.parametrize(("count", "rounds", "pairs_per_round"), [(64, 63, 32), (8, 7, 4), (7, 7, 3), (3, 3, 1)])
def test_round_shape(count: int, rounds: int, pairs_per_round: int) -> None:
    result = circle_rounds(node_names(count))
    assert len(result) == rounds
    assert {len(r) for r in result} == {pairs_per_round}


@pytest.mark.parametrize("count", [0, 1])
def test_nothing_to_pair(count: int) -> None:
    assert circle_rounds(node_names(count)) == []
    assert lower_bound_rounds(count) == 0


def test_pairs_oriented_by_input_order() -> None:
    nodes = ["c", "a", "b", "d"]
    for round_pairs in circle_rounds(nodes):
        for a, b in round_pairs:
            assert nodes.index(a) < nodes.index(b)


def test_deterministic() -> None:
    assert circle_rounds(node_names(12)) == circle_rounds(node_names(12))


def test_duplicate_member_refused() -> None:
    with pytest.raises(ValueError, match="node01.*twice"):
        circle_rounds(["node01", "node02", "node01"])


@pytest.mark.parametrize("count", [2, 4, 6, 7])
def test_directed_rounds_cover_both_directions(count: int) -> None:
    nodes = node_names(count)
    rounds = directed_rounds(nodes)
    items = [pair for round_pairs in rounds for pair in round_pairs]
    assert sorted(items) == sorted(permutations(nodes, 2))
    assert_disjoint(rounds)
    assert len(rounds) == lower_bound_rounds(count, directed=True)


@pytest.mark.parametrize(("count", "directed", "bound"), [(64, False, 63), (64, True, 126), (5, False, 5),
                                                          (5, True, 10), (2, False, 1)])
def test_lower_bound_values(count: int, directed: bool, bound: int) -> None:
    assert lower_bound_rounds(count, directed) == bound


def test_lower_bound_negative_refused() -> None:
    with pytest.raises(ValueError):
        lower_bound_rounds(-1)


def test_64_nodes_8_rails_bidirectional_schedule_needs_at_most_63_rounds(nodes64: list[str]) -> None:
    rounds = rail_rounds(nodes64, range(8))
    assert len(rounds) <= 63
    assert len(rounds) == lower_bound_rounds(64)
    assert_disjoint(rounds)
    items = [pair for round_pairs in rounds for pair in round_pairs]
    assert len(items) == len(set(items)) == 8 * 64 * 63 // 2
    assert all(a[1] == b[1] for a, b in items), "a NIC is paired only within its rail"
    assert {len(r) for r in rounds} == {8 * 32}


def test_rails_must_be_unique() -> None:
    with pytest.raises(ValueError, match="twice"):
        rail_rounds(node_names(4), [0, 0])
