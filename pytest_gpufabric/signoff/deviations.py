"""Approved deviations: a failed, unmeasured or missing item that the customer accepts, with the reason, who
approved it and when. A deviation never turns an item into a pass: the item is shown as *deviation* and the
verdict reads "accepted with N approved deviations", each one listed on the cover."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from fnmatch import fnmatchcase
from typing import Any

PAIR_SEPARATOR = "->"


@dataclass(frozen=True)
class Deviation:
    """One approval: ``check`` (a catalog id) and, optionally, ``where`` (a glob over an item id or its parts:
    a node, a NIC ``node/nic``, a switch port ``leaf/Ethernet1/1``, a NIC pair)."""

    check: str
    reason: str
    approved_by: str
    date: str  # ISO date of the approval
    where: str | None = None
    expires: str | None = None  # ISO date; the deviation no longer applies after it
    origin: str = ""  # where it was written: "site.yaml:42", "deviations.yaml:7"

    @property
    def label(self) -> str:
        return f"{self.check} {self.where}" if self.where else f"{self.check} (every item)"

    def expired(self, on: dt.date) -> bool:
        return self.expires is not None and dt.date.fromisoformat(self.expires) < on

    def matches(self, check_id: str | None, item_id: str | None) -> bool:
        if check_id != self.check:
            return False
        if self.where is None:
            return True
        return any(fnmatchcase(part, self.where) for part in item_parts(item_id or ""))

    def as_plain(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Deviation:
        known = {name: data.get(name) for name in ("where", "expires", "origin") if data.get(name) is not None}
        return cls(check=str(data["check"]), reason=str(data["reason"]), approved_by=str(data["approved_by"]),
                   date=str(data["date"]), **{k: str(v) for k, v in known.items()})


def item_parts(item_id: str) -> tuple[str, ...]:
    """What a ``where`` pattern is matched against: the whole id, each end of a pair, and each end's node and
    NIC (``node01/bnxt_re0~gpu0`` -> itself, ``node01/bnxt_re0``, ``node01``)."""
    parts = [item_id]
    for end in item_id.split(PAIR_SEPARATOR):
        nic = end.split("~", 1)[0]
        for part in (end, nic, nic.split("/", 1)[0]):
            if part and part not in parts:
                parts.append(part)
    return tuple(parts)


@dataclass(frozen=True)
class DeviationSet:
    """The deviations in force on ``on`` (the date the latest merged run ended), and the expired ones."""

    active: tuple[Deviation, ...]
    expired: tuple[Deviation, ...]

    @classmethod
    def of(cls, deviations: Iterable[Deviation], on: dt.date) -> DeviationSet:
        every = tuple(deviations)
        return cls(tuple(d for d in every if not d.expired(on)), tuple(d for d in every if d.expired(on)))

    def approving(self, check_id: str | None, item_id: str | None) -> Deviation | None:
        """The first deviation in force that approves this item (file order), or None."""
        return next((d for d in self.active if d.matches(check_id, item_id)), None)
