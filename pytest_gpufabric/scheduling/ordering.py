"""Order collected test items so that consecutive items form rounds with disjoint resources.

With a lock per NIC/GPU, items that share a resource wait for each other. Running items in rounds of
disjoint resources keeps workers busy: the greedy pass takes, in collection order, every item whose
resources are still free in the current round, then starts the next round with what is left.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

Item = TypeVar("Item")


def group_in_rounds(items: Sequence[Item], resources_of: Callable[[Item], Iterable[Hashable]]) -> list[list[Item]]:
    """Greedy first-fit rounds: each round's items use disjoint resources; stable with respect to ``items``.

    Items without resources fit in any round and join the first one. Given pairs in circle order, the
    rounds are exactly the circle rounds.
    """
    pending = [(item, frozenset(resources_of(item))) for item in items]
    rounds: list[list[Item]] = []
    while pending:
        used: set[Hashable] = set()
        this_round: list[Item] = []
        rest: list[tuple[Item, frozenset[Hashable]]] = []
        for item, resources in pending:
            if used.isdisjoint(resources):
                used.update(resources)
                this_round.append(item)
            else:
                rest.append((item, resources))
        rounds.append(this_round)
        pending = rest
    return rounds


def order_items_in_rounds(items: Sequence[Item], resources_of: Callable[[Item], Iterable[Hashable]]) -> list[Item]:
    """``items`` reordered round after round (see group_in_rounds); same items, deterministic order."""
    return [item for round_items in group_in_rounds(items, resources_of) for item in round_items]
