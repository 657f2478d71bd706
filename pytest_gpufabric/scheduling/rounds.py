"""Round-robin pairing (the circle method): every pair once, in rounds of disjoint pairs.

A pair test occupies both of its ends (their NICs) for its whole duration, so tests that run at the same
time must be disjoint pairs. The circle method fixes one member and rotates the others: with n members
(n even) it yields n-1 rounds of n/2 disjoint pairs that together hold every unordered pair exactly once,
which meets the lower bound. With n odd a "bye" is added and each round leaves one member idle (n rounds).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from typing import TypeVar

Member = TypeVar("Member", bound=Hashable)
Pair = tuple[Member, Member]

_BYE = object()


def _check_unique(members: Sequence[Hashable]) -> None:
    seen: set[Hashable] = set()
    for member in members:
        if member in seen:
            raise ValueError(f"member {member!r} listed twice")
        seen.add(member)


def circle_rounds(members: Sequence[Member]) -> list[list[tuple[Member, Member]]]:
    """Rounds of disjoint unordered pairs covering every pair of ``members`` exactly once.

    n-1 rounds of n/2 pairs for n even, n rounds of (n-1)/2 pairs for n odd. Each pair is oriented as in
    ``members`` (earlier member first), so the result depends only on the order of ``members``.
    """
    return list(iter_circle_rounds(members))


def iter_circle_rounds(members: Sequence[Member]) -> Iterator[list[tuple[Member, Member]]]:
    """The rounds of ``circle_rounds``, one at a time: the first K of 20,000 nodes cost K rounds, not all."""
    _check_unique(members)
    if len(members) < 2:
        return
    order = {member: index for index, member in enumerate(members)}
    slots: list[object] = list(members)
    if len(slots) % 2:
        slots.append(_BYE)
    count = len(slots)
    for number in range(count - 1):
        # round r: slot 0 stays, the others turned r places (the circle method's rotation)
        turned = [slots[0], *slots[count - number:], *slots[1:count - number]] if number else slots
        pairs: list[tuple[Member, Member]] = []
        for index in range(count // 2):
            first, second = turned[index], turned[count - 1 - index]
            if first is _BYE or second is _BYE:
                continue
            a, b = sorted((first, second), key=lambda member: order[member])  # type: ignore[index]
            pairs.append((a, b))  # type: ignore[arg-type]
        yield sorted(pairs, key=lambda pair: (order[pair[0]], order[pair[1]]))


def directed_rounds(members: Sequence[Member]) -> list[list[tuple[Member, Member]]]:
    """Rounds covering every ordered pair once: the circle rounds, then the same rounds reversed.

    For runs where (a, b) and (b, a) are separate tests (server a / client b, then roles swapped), each still
    occupying both ends: 2(n-1) rounds for n even, which is the lower bound.
    """
    forward = circle_rounds(members)
    return forward + [[(b, a) for a, b in pairs] for pairs in forward]


def lower_bound_rounds(member_count: int, directed: bool = False) -> int:
    """Fewest rounds any schedule needs when a test occupies both ends of its pair.

    Every member is in member_count-1 unordered pairs and can take part in one pair per round; with an odd
    count a round has at most (n-1)/2 pairs for n(n-1)/2 pairs in all, so n rounds. Ordered pairs (both
    directions as separate tests) double it.
    """
    if member_count < 0:
        raise ValueError(f"member count {member_count} is negative")
    if member_count < 2:
        return 0
    unordered = member_count - 1 if member_count % 2 == 0 else member_count
    return 2 * unordered if directed else unordered


def rail_rounds(nodes: Sequence[Member], rails: Sequence[Hashable]) -> list[list[tuple[tuple[Member, Hashable], tuple[Member, Hashable]]]]:
    """All-pairs NIC-to-NIC schedule for a rail-optimized fabric.

    A NIC is (node, rail); NICs are paired only within a rail, and rails are independent resources, so the
    circle rounds of the nodes run on every rail at once: round r holds, for each rail, the node pairs of
    circle round r. The number of rounds is that of the nodes alone (63 for 64 nodes), whatever the rail count.
    """
    _check_unique(list(rails))
    node_rounds = circle_rounds(nodes)
    return [[((a, rail), (b, rail)) for rail in rails for a, b in pairs] for pairs in node_rounds]
