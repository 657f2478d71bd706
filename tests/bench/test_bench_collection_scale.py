"""Collection of the acceptance suite on synthesized inventories (N nodes x 8 rails, mi300x-thor2): the CPU time
of pytest's collection (the plugin's hooks with pytest's own item building, start-up left out) per item, at 64
nodes and, for the flatness of the per-item cost, at 16, and the cost of each item 64 nodes add to 16 (the
suite's imports, a fixed cost, left out). Every same-rail NIC pair is checked to be covered. The figures land
in the benchmark's extra_info;
``tools/collection_scale.py`` measures whole processes up to 1,024 nodes.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from itertools import combinations
from pathlib import Path

import pytest
import yaml

import pytest_gpufabric.parsers.all  # noqa: F401  # parsers register once per process, before the in-process runs import them
from tools.synth_inventory import synthesize

REPO = Path(__file__).resolve().parents[2]
RAILS = 8
PAIR_CHECKS = 7  # NET-002, PERF-002..005, PERF-007, PERF-008: one item per check and node pair


class CollectionClock:
    """The CPU seconds pytest spends in collection (every collection hook, item building, ordering) and the items."""

    def __init__(self) -> None:
        self.cpu_s = 0.0
        self.items: list[pytest.Item] = []

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, object, object]:
        started = time.process_time()
        try:
            return (yield)
        finally:
            self.cpu_s = time.process_time() - started
            self.items = list(session.items)


def _collect(pytester: pytest.Pytester, nodes: int) -> tuple[list[pytest.Item], float]:
    site = pytester.path / f"site-{nodes}.yaml"
    site.write_text(yaml.safe_dump(synthesize(nodes, RAILS), sort_keys=False), encoding="utf-8")
    clock = CollectionClock()
    pytester.inline_run(str(REPO / "suites" / "acceptance"), f"--cluster={site}", f"--thresholds-dir={REPO / 'thresholds'}",
                        "--collect-only", "-qq", "-p", "no:cacheprovider", plugins=[clock])
    assert clock.items, "nothing collected"
    return clock.items, clock.cpu_s


def _pair_items(items: list[pytest.Item]) -> dict[str, list[pytest.Item]]:
    """The node-pair items of each pair test (their ids are ``node0001->node0002``)."""
    tests: dict[str, list[pytest.Item]] = {}
    for item in items:
        if "->" in item.name:
            tests.setdefault(item.originalname, []).append(item)  # type: ignore[attr-defined]
    return tests


def test_collection_cost_per_item(pytester: pytest.Pytester, benchmark: pytest.FixtureRequest) -> None:
    small_items, small_s = _collect(pytester, 16)
    if benchmark.disabled:  # type: ignore[attr-defined]  # pytest-benchmark is off under xdist: time it here
        items, cpu_s = _collect(pytester, 64)
    else:
        items, cpu_s = benchmark.pedantic(lambda: _collect(pytester, 64), rounds=1, iterations=1)  # type: ignore[attr-defined]
    names = [f"node{number:04d}" for number in range(1, 65)]
    every_pair = {f"{a}->{b}" for a, b in combinations(names, 2)}
    pair_tests = _pair_items(items)
    assert len(pair_tests) >= PAIR_CHECKS
    assert all({item.callspec.id for item in tested} == every_pair for tested in pair_tests.values())  # type: ignore[attr-defined]
    nic_pairs = {pair.id for item in pair_tests["test_nic_switch_nic_bandwidth"] for pair in item.callspec.params["node_pair"].rail_pairs()}  # type: ignore[attr-defined]
    assert len(nic_pairs) == RAILS * len(every_pair)  # every same-rail NIC pair, measured by its node pair's item
    per_item_us, small_per_item_us = 1e6 * cpu_s / len(items), 1e6 * small_s / len(small_items)
    figures = {"items_64_nodes": len(items), "collection_cpu_s_64_nodes": round(cpu_s, 2), "us_per_item_64_nodes": round(per_item_us, 1),
               "items_16_nodes": len(small_items), "us_per_item_16_nodes": round(small_per_item_us, 1),
               "per_item_64_vs_16": round(per_item_us / small_per_item_us, 2),
               "us_per_added_item": round(1e6 * (cpu_s - small_s) / (len(items) - len(small_items)), 1)}  # the suite's imports left out
    if not benchmark.disabled:  # type: ignore[attr-defined]
        benchmark.extra_info.update(figures)  # type: ignore[attr-defined]
    print(f"\ncollection: {figures}")
