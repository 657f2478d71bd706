"""Pair selection policies: which node pairs a pair check runs on. Deterministic for a given inventory."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import islice
from typing import TypeVar

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.scheduling.rounds import circle_rounds, iter_circle_rounds

Member = TypeVar("Member", bound=Hashable)

POLICIES = ("all", "round-robin", "same-leaf", "explicit")


def all_pairs(members: Sequence[Member]) -> list[tuple[Member, Member]]:
    """Every unordered pair once, listed round by round (so consecutive pairs form disjoint rounds)."""
    return [pair for pairs in circle_rounds(members) for pair in pairs]


def round_robin_pairs(members: Sequence[Member], rounds: int) -> list[tuple[Member, Member]]:
    """The pairs of the first ``rounds`` circle rounds: every member meets ``rounds`` partners (a sample)."""
    if rounds < 1:
        raise UsageError(f"round-robin pair selection needs at least 1 round, got {rounds}")
    return [pair for pairs in islice(iter_circle_rounds(members), rounds) for pair in pairs]


def same_leaf_pairs(members: Sequence[Member], switch_of: Mapping[Member, str]) -> list[tuple[Member, Member]]:
    """All pairs of members attached to the same leaf switch, leaf by leaf in order of first appearance."""
    missing = [member for member in members if member not in switch_of]
    if missing:
        raise UsageError(f"no leaf switch known for {', '.join(map(str, missing))}")
    leaves: dict[str, list[Member]] = {}
    for member in members:
        leaves.setdefault(switch_of[member], []).append(member)
    return [pair for group in leaves.values() for pair in all_pairs(group)]


def explicit_pairs(members: Sequence[Member], pairs: Iterable[tuple[Member, Member]]) -> list[tuple[Member, Member]]:
    """The given pairs, checked against ``members``; duplicates (in either orientation) dropped, order kept."""
    known = set(members)
    chosen: list[tuple[Member, Member]] = []
    seen: set[frozenset[Member]] = set()
    for a, b in pairs:
        unknown = [member for member in (a, b) if member not in known]
        if unknown:
            raise UsageError(f"pair ({a}, {b}) names {', '.join(map(str, unknown))}, not in the inventory")
        if a == b:
            raise UsageError(f"pair ({a}, {b}) pairs a node with itself")
        key = frozenset((a, b))
        if key not in seen:
            seen.add(key)
            chosen.append((a, b))
    return chosen


def select_pairs(policy: str, members: Sequence[Member], *, rounds: int | None = None,
                 switch_of: Mapping[Member, str] | None = None,
                 pairs: Iterable[tuple[Member, Member]] | None = None) -> list[tuple[Member, Member]]:
    """Dispatch on the policy name: "all", "round-robin" (needs rounds), "same-leaf" (needs switch_of), "explicit" (needs pairs)."""
    if policy == "all":
        return all_pairs(members)
    if policy == "round-robin":
        if rounds is None:
            raise UsageError("round-robin pair selection needs a number of rounds")
        return round_robin_pairs(members, rounds)
    if policy == "same-leaf":
        if switch_of is None:
            raise UsageError("same-leaf pair selection needs each node's leaf switch")
        return same_leaf_pairs(members, switch_of)
    if policy == "explicit":
        if pairs is None:
            raise UsageError("explicit pair selection needs a list of pairs")
        return explicit_pairs(members, pairs)
    raise UsageError(f"unknown pair selection policy {policy!r}; choose one of {', '.join(POLICIES)}")
