"""Retests merged into one acceptance: the latest result of each item wins, and of each NIC pair of a node-pair
item (a ``--rerun-failed-pairs`` retest measures only some rails of an item); every retest says what it changed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pytest_gpufabric.results import param_id

PAIR_ORDER = {"failed": 0, "error": 1, "skipped": 2, "passed": 3}


def record_key(record: dict[str, Any]) -> tuple[str, str]:
    """(check id, item as the suite names it): the parameter of the node id, else the record's target."""
    return str(record.get("check_id") or ""), param_id(str(record.get("node_id", ""))) or str(record.get("item") or "")


@dataclass(frozen=True)
class Change:
    """What a retest changed for one item (or NIC pair): ``before`` is None for an item new in the retest."""

    check_id: str
    item: str
    before: str | None
    after: str


@dataclass(frozen=True)
class Retest:
    run_id: str
    started: str
    changes: tuple[Change, ...]
    items: int  # records the retest wrote


def _pair_outcome(pairs: list[dict[str, Any]]) -> str:
    """A node-pair item's outcome from its NIC pairs: failed over not measured over skipped over passed."""
    return min((pair.get("outcome", "error") for pair in pairs), key=lambda o: PAIR_ORDER.get(o, 1), default="error")


def _merge_pairs(old: dict[str, Any], new: dict[str, Any], changes: list[Change], key: tuple[str, str]) -> dict[str, Any]:
    """``new`` with the NIC pairs of ``old`` it did not measure again; the outcome follows the merged pairs."""
    by_pair = {str(pair.get("pair")): pair for pair in old.get("pairs") or ()}
    for pair in new.get("pairs") or ():
        before = by_pair.get(str(pair.get("pair")))
        if before is None or before.get("outcome") != pair.get("outcome"):
            changes.append(Change(key[0], str(pair.get("pair")), before.get("outcome") if before else None,
                                  str(pair.get("outcome"))))
        by_pair[str(pair.get("pair"))] = pair
    pairs = sorted(by_pair.values(), key=lambda pair: (pair.get("rail") is None, str(pair.get("rail")), str(pair.get("pair"))))
    return dict(new, pairs=pairs, outcome=_pair_outcome(pairs))


def merge_runs(runs: Iterable[tuple[str, str, list[dict[str, Any]]]]) -> tuple[list[dict[str, Any]], list[Retest]]:
    """Records of (run id, start, records) in run order merged: one record per item, the latest; each record
    is stamped with the ``run_id`` it comes from. The first run is the acceptance run, the others retests."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    retests: list[Retest] = []
    for index, (run_id, started, records) in enumerate(runs):
        changes: list[Change] = []
        for record in records:
            key = record_key(record)
            stamped = dict(record, run_id=run_id)
            old = merged.get(key)
            if old is not None and record.get("outcome") == "skipped" and old.get("outcome") != "skipped":
                continue  # a retest that skipped an item (no --soak, say) does not undo its result
            if old is not None and old.get("pairs") and record.get("pairs") and record.get("outcome") != "skipped":
                stamped = _merge_pairs(old, stamped, changes, key)
            elif index and (old is None or old.get("outcome") != record.get("outcome")):
                changes.append(Change(key[0], key[1], old.get("outcome") if old else None, str(record.get("outcome"))))
            merged[key] = stamped
        if index:
            retests.append(Retest(run_id, started, tuple(changes), len(records)))
    return sorted(merged.values(), key=lambda r: str(r.get("node_id"))), retests
