"""Scheduling of pair tests: pair selection and rounds of disjoint pairs (the locks and the schedule log they
rely on live below, in ``pytest_gpufabric.exclusive``)."""

from pytest_gpufabric.scheduling.ordering import group_in_rounds, order_items_in_rounds
from pytest_gpufabric.scheduling.pairs import (
    POLICIES,
    all_pairs,
    explicit_pairs,
    round_robin_pairs,
    same_leaf_pairs,
    select_pairs,
)
from pytest_gpufabric.scheduling.rounds import circle_rounds, directed_rounds, lower_bound_rounds, rail_rounds

__all__ = [
    "POLICIES", "all_pairs", "circle_rounds", "directed_rounds", "explicit_pairs", "group_in_rounds",
    "lower_bound_rounds", "order_items_in_rounds", "rail_rounds", "round_robin_pairs", "same_leaf_pairs",
    "select_pairs",
]
