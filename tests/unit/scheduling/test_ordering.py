"""Ordering collected items into rounds of disjoint resources."""

from __future__ import annotations

import random

from pytest_gpufabric.scheduling import all_pairs, group_in_rounds, order_items_in_rounds
from pytest_gpufabric.scheduling.ordering import round_numbers
from tests.unit.scheduling.helpers import assert_disjoint, nic_pair_items, node_names


def test_circle_ordered_pairs_give_the_circle_rounds() -> None:
    nodes = node_names(10)
    rounds = group_in_rounds(all_pairs(nodes), lambda pair: pair)
    assert len(rounds) == 9
    assert_disjoint(rounds)


def test_sorted_items_are_regrouped_into_disjoint_rounds() -> None:
    items = sorted(nic_pair_items(node_names(8), rails=2))
    rounds = group_in_rounds(items, lambda pair: pair)
    assert_disjoint(rounds)
    assert sorted(item for r in rounds for item in r) == items
    assert order_items_in_rounds(items, lambda pair: pair) == [item for r in rounds for item in r]


def test_stable_and_deterministic() -> None:
    items = nic_pair_items(node_names(6), rails=1)
    random.Random(7).shuffle(items)
    first = order_items_in_rounds(items, lambda pair: pair)
    assert first == order_items_in_rounds(list(items), lambda pair: pair)
    # within a round, items keep their collection order
    for round_items in group_in_rounds(items, lambda pair: pair):
        assert round_items == sorted(round_items, key=items.index)


def test_items_without_resources_join_the_first_round() -> None:
    items = [("a", "b"), ("a", "c"), ()]
    rounds = group_in_rounds(items, lambda item: item)
    assert rounds == [[("a", "b"), ()], [("a", "c")]]


def test_empty() -> None:
    assert order_items_in_rounds([], lambda item: item) == []


def test_each_item_goes_right_after_the_last_round_of_its_resources() -> None:
    items = [("a", "b"), ("c", "d"), ("a", "c"), ("b", "d"), ("e", "f")]
    assert round_numbers(items, lambda item: item) == [0, 0, 1, 1, 0]
