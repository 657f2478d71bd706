"""The rounds of the node-pair items of each check, from the final item order (one pass, linear)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from pytest_gpufabric.measuring.engine import RoundMember, RoundPlan
from pytest_gpufabric.scheduling.ordering import round_numbers
from pytest_gpufabric.targets import NodePairTarget

Item = TypeVar("Item")


def plan_rounds(items: Sequence[Item], check_of: Callable[[Item], str], nodeid_of: Callable[[Item], str],
                keys_of: Callable[[Item], Iterable[Hashable]], target_of: Callable[[Item], NodePairTarget]) -> list[RoundPlan]:
    """Each check's items grouped in rounds of disjoint node pairs (in item order), numbered 1..N per check."""
    by_check: dict[str, dict[int, list[RoundMember]]] = {}
    for item, number in zip(items, round_numbers(items, keys_of)):
        rounds = by_check.setdefault(check_of(item), {})
        rounds.setdefault(number, []).append(RoundMember(nodeid_of(item), target_of(item)))
    plans = []
    for check_id, rounds in by_check.items():
        for index, number in enumerate(sorted(rounds), start=1):
            plans.append(RoundPlan(check_id, index, len(rounds), tuple(rounds[number])))
    return plans
