"""``--rerun-failed-pairs=RESULTS.jsonl``: measure again only the NIC pairs that failed (or could not be
measured) in an earlier run, per check. Reads both shapes of results records: node-pair records with a
``pairs`` list, and one record per NIC pair item (``item`` ``node01/bnxt_re2->node03/bnxt_re2``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.errors import UsageError

NOT_PASSED = ("failed", "error")
PAIR_SEPARATOR = "->"


def _nodes_of(pair_id: str) -> frozenset[str] | None:
    ends = pair_id.split(PAIR_SEPARATOR)
    if len(ends) != 2 or not all("/" in end for end in ends):
        return None  # not a NIC pair id
    return frozenset(end.split("/", 1)[0] for end in ends)


@dataclass(frozen=True)
class FailedPairs:
    """check id -> the NIC pair ids (``a/nic->b/nic``) that did not pass."""

    by_check: dict[str, frozenset[str]]
    origin: str

    @classmethod
    def from_records(cls, records: Iterable[dict[str, object]], origin: str) -> FailedPairs:
        found: dict[str, set[str]] = {}
        for record in records:
            entries = record.get("pairs") or [record]
            for entry in entries:  # type: ignore[union-attr]
                pair = entry.get("pair") or entry.get("item")
                if entry.get("outcome") in NOT_PASSED and isinstance(pair, str) and _nodes_of(pair):
                    found.setdefault(str(record.get("check_id")), set()).add(pair)
        return cls({check: frozenset(pairs) for check, pairs in found.items()}, origin)

    @classmethod
    def load(cls, path: Path) -> FailedPairs:
        """Read a results.jsonl; a missing file or a bad line is a one-line UsageError."""
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise UsageError(f"--rerun-failed-pairs: cannot read {path}: {exc.strerror}") from None
        records = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                raise UsageError(f"--rerun-failed-pairs: {path}:{number} is not a JSON results record") from None
        return cls.from_records(records, str(path))

    def keeps(self, check_id: str, pair_id: str) -> bool:
        return pair_id in self.by_check.get(check_id, frozenset())

    def node_pairs(self, selected: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The node pairs of ``selected`` (order kept) that hold a failed NIC pair of any check."""
        nodes = {_nodes_of(pair) for pairs in self.by_check.values() for pair in pairs}
        return [pair for pair in selected if frozenset(pair) in nodes]

    def holds(self, check_id: str, node_a: str, node_b: str) -> bool:
        """Whether the node pair holds a failed NIC pair of ``check_id``."""
        wanted = frozenset((node_a, node_b))
        return any(_nodes_of(pair) == wanted for pair in self.by_check.get(check_id, ()))
