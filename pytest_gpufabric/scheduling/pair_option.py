"""The ``--pair-policy`` option: ``all``, ``rounds:K``, ``same-leaf`` or ``list:FILE``, resolved to node pairs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.scheduling.ordering import group_in_rounds
from pytest_gpufabric.scheduling.pairs import select_pairs
from pytest_gpufabric.scheduling.rounds import lower_bound_rounds

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Inventory

PAIR_LINE = re.compile(r"^\s*(\S+?)\s*(?:->|,|\s)\s*(\S+)\s*$")


@dataclass(frozen=True)
class PairPolicy:
    """A parsed ``--pair-policy``: ``kind`` is "all", "rounds", "same-leaf" or "list"."""

    kind: str
    rounds: int | None = None
    path: Path | None = None

    def describe(self) -> str:
        return {"rounds": f"rounds:{self.rounds}", "list": f"list:{self.path}"}.get(self.kind, self.kind)


def parse_pair_policy(text: str) -> PairPolicy:
    if text in ("all", "same-leaf"):
        return PairPolicy(text)
    kind, _, argument = text.partition(":")
    if kind == "rounds" and argument.isdigit() and int(argument) >= 1:
        return PairPolicy("rounds", rounds=int(argument))
    if kind == "list" and argument:
        return PairPolicy("list", path=Path(argument))
    raise UsageError(f"--pair-policy {text!r}: expected all, rounds:K (K >= 1), same-leaf or list:FILE")


def read_pair_list(text: str, origin: str) -> list[tuple[str, str]]:
    """Node pairs, one a line (``a b``, ``a,b`` or ``a->b``); blank lines and ``#`` comments skipped."""
    pairs = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        match = PAIR_LINE.match(line)
        if match is None:
            raise UsageError(f"{origin}:{number}: expected two node names, found {raw.strip()!r}")
        pairs.append((match.group(1), match.group(2)))
    return pairs


def leaf_of(inventory: Inventory) -> dict[str, str]:
    """Node name -> the leaf switch of its first cabled NIC (by rail)."""
    leaves = {}
    for node in inventory.nodes:
        switch = next((nic.switch for nic in sorted(node.nics, key=lambda n: n.rail) if nic.switch), None)
        if switch is not None:
            leaves[node.name] = switch
    return leaves


def selected_node_pairs(policy: PairPolicy, inventory: Inventory) -> list[tuple[str, str]]:
    """The node pairs the pair checks run on, in round order (deterministic for an inventory)."""
    names = [node.name for node in inventory.nodes]
    if policy.kind == "all":
        return select_pairs("all", names)
    if policy.kind == "rounds":
        return select_pairs("round-robin", names, rounds=policy.rounds)
    if policy.kind == "same-leaf":
        return select_pairs("same-leaf", names, switch_of=leaf_of(inventory))
    assert policy.path is not None
    try:
        text = policy.path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--pair-policy list: cannot read {policy.path}: {exc.strerror}") from None
    return select_pairs("explicit", names, pairs=read_pair_list(text, str(policy.path)))


def rounds_summary(pairs: Sequence[tuple[str, str]], node_count: int) -> tuple[int, int]:
    """(rounds the selected pairs need when run in disjoint rounds, the lower bound for all pairs of the nodes)."""
    return len(group_in_rounds(pairs, lambda pair: pair)), lower_bound_rounds(node_count)
