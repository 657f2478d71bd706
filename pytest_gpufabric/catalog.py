"""The catalog of documented checks (ids, titles, scopes, sources, hints), bundled with the package."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

SCOPES = ("cluster", "node", "gpu", "nic", "nic_gpu_pair", "node_pair", "nic_pair", "switch", "switch_port")
# Checks judged per NIC pair are collected as one item per node pair that measures all its rails at once
# (one verdict per NIC pair in the results): the item count grows with node pairs, not NIC pairs.
ITEM_SCOPES = {"nic_pair": "node_pair"}


def item_scopes(scope: str) -> tuple[str, ...]:
    """The fixtures an item of a check of ``scope`` may take (its own scope, or the one it is collected in)."""
    return (scope, ITEM_SCOPES[scope]) if scope in ITEM_SCOPES else (scope,)


@dataclass(frozen=True)
class CheckSpec:
    """One documented check: what it verifies, where it applies, which document section says so."""

    id: str
    title: str
    scope: str
    applies: tuple[str, ...]
    source: str
    how: str
    expect: str
    hint: str | None
    guest: str | None = None  # what the check means on another hypervisor's guest, with its source
    measured: str = "item"  # "mesh": measured once for the run, every node probing its peers (measuring.mesh)


class Catalog:
    """Read-only lookup of CheckSpec by id, in catalog order."""

    def __init__(self, checks: tuple[CheckSpec, ...]) -> None:
        self._checks = checks
        self._by_id = {c.id: c for c in checks}

    def __contains__(self, check_id: object) -> bool:
        return check_id in self._by_id

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._checks)

    def get(self, check_id: str) -> CheckSpec:
        try:
            return self._by_id[check_id]
        except KeyError:
            raise KeyError(f"unknown check id {check_id!r} (not in the catalog)") from None


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The catalog shipped in the package (a copy of the project's check-catalog.yaml)."""
    text = resources.files("pytest_gpufabric").joinpath("catalog.yaml").read_text(encoding="utf-8")
    raw = yaml.safe_load(text)["checks"]
    extra_hints = yaml.safe_load(resources.files("pytest_gpufabric").joinpath("hints.yaml").read_text(encoding="utf-8")) or {}
    checks = tuple(
        CheckSpec(
            id=entry["id"],
            title=entry["title"],
            scope=entry["scope"],
            applies=tuple(entry.get("applies", ())),
            source=entry["source"],
            how=entry.get("how", ""),
            expect=entry.get("expect", ""),
            hint=entry.get("hint") or extra_hints.get(entry["id"]),
            guest=entry.get("guest"),
            measured=entry.get("measured", "item"),
        )
        for entry in raw
    )
    return Catalog(checks)
