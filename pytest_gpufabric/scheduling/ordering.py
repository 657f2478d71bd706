"""Order collected test items so that consecutive items form rounds with disjoint resources.

With a lock per NIC/GPU, items that share a resource wait for each other. Running items in rounds of
disjoint resources keeps workers busy. Each item goes to the round right after the last round that used
one of its resources (one pass, linear in the number of item resources; no rescans). Pair items are
collected in circle order (see ``targets``), so each pair lands in its circle round: n-1 rounds per check
for n nodes, the lower bound, and the checks follow each other.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from pytest_gpufabric.targets import NodePairTarget

Item = TypeVar("Item")


def round_numbers(items: Sequence[Item], resources_of: Callable[[Item], Iterable[Hashable]]) -> list[int]:
    """The round of each item: one after the latest round of any of its resources (0 without resources)."""
    next_free: dict[Hashable, int] = {}
    numbers = []
    for item in items:
        resources = tuple(resources_of(item))
        number = 0
        for resource in resources:
            free = next_free.get(resource, 0)
            if free > number:
                number = free
        for resource in resources:
            next_free[resource] = number + 1
        numbers.append(number)
    return numbers


def group_in_rounds(items: Sequence[Item], resources_of: Callable[[Item], Iterable[Hashable]]) -> list[list[Item]]:
    """Rounds whose items use disjoint resources, items in collection order within a round (linear time).

    Items without resources join the first round. Given pairs in circle order, the rounds are exactly the
    circle rounds.
    """
    numbers = round_numbers(items, resources_of)
    rounds: list[list[Item]] = [[] for _ in range(max(numbers, default=-1) + 1)]
    for item, number in zip(items, numbers):
        rounds[number].append(item)
    return rounds


def order_items_in_rounds(items: Sequence[Item], resources_of: Callable[[Item], Iterable[Hashable]]) -> list[Item]:
    """``items`` reordered round after round (see group_in_rounds); same items, deterministic order."""
    return [item for round_items in group_in_rounds(items, resources_of) for item in round_items]


def ordering_keys(target: Any) -> tuple[str, ...]:
    """What an item occupies for ordering in rounds, at the coarsest grain that keeps rounds right: the NIC
    of a NIC-level target, else its whole nodes. Two or three names per item, whatever the node's size (the
    locks, taken when the item runs, hold the exact resources)."""
    if isinstance(target, NodePairTarget):
        return target.a.name, target.b.name
    if hasattr(target, "nic_a"):
        return f"{target.node_a.name}/{target.nic_a.name}", f"{target.node_b.name}/{target.nic_b.name}"
    if hasattr(target, "nic") and hasattr(target, "node"):
        return (f"{target.node.name}/{target.nic.name}",)
    return tuple(node.name for node in getattr(target, "nodes", ()))
