"""Helpers for the scheduling tests: node names, NIC pair items and a round checker."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence


def node_names(count: int) -> list[str]:
    """``node01``, ``node02``, ... as an inventory would name them."""
    return [f"node{index:02d}" for index in range(1, count + 1)]


def assert_disjoint(rounds: Iterable[Iterable[Iterable[Hashable]]]) -> None:
    """Every round uses each resource at most once."""
    for number, round_items in enumerate(rounds):
        used: set[Hashable] = set()
        for resources in round_items:
            resources = set(resources)
            assert used.isdisjoint(resources), f"round {number} uses {used & resources} twice"
            used |= resources


def nic_pair_items(nodes: Sequence[str], rails: int) -> list[tuple[str, str]]:
    """Every NIC pair of a rail-optimized fabric as (nic, nic) names, e.g. ("node01/rail0", "node02/rail0")."""
    return [(f"{a}/rail{rail}", f"{b}/rail{rail}")
            for rail in range(rails) for i, a in enumerate(nodes) for b in nodes[i + 1:]]
