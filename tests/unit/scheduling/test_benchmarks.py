"""Micro-benchmarks of the scheduling functions at acceptance scale (64 nodes x 8 rails)."""

from __future__ import annotations

import random

from pytest_benchmark.fixture import BenchmarkFixture

from pytest_gpufabric.scheduling import group_in_rounds, order_items_in_rounds, rail_rounds
from tests.unit.scheduling.helpers import assert_disjoint, nic_pair_items


def test_bench_rail_rounds_64_nodes_8_rails(benchmark: BenchmarkFixture, nodes64: list[str]) -> None:
    rounds = benchmark(rail_rounds, nodes64, range(8))
    assert len(rounds) == 63


def test_bench_order_items_in_rounds_64_nodes_8_rails(benchmark: BenchmarkFixture, nodes64: list[str]) -> None:
    items = nic_pair_items(nodes64, rails=8)
    random.Random(11).shuffle(items)
    ordered = benchmark(order_items_in_rounds, items, lambda pair: pair)
    assert sorted(ordered) == sorted(items)
    assert_disjoint(group_in_rounds(ordered, lambda pair: pair))
