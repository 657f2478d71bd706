"""Uniqueness of values across an inventory: the second use of a value is reported with the first one's place."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from pytest_gpufabric.inventory.problems import ProblemLog


@dataclass(frozen=True)
class Place:
    line: int
    location: str


@dataclass
class UniqueValues:
    """Values of one kind (e.g. "NIC address") that must not repeat within their scope."""

    what: str
    log: ProblemLog
    first: dict[Hashable, Place] = field(default_factory=dict)

    def claim(self, key: Hashable, shown: str, line: int, location: str) -> bool:
        """Records a use of `key`; logs a problem and returns False if it was used before."""
        earlier = self.first.get(key)
        if earlier is not None:
            self.log.add(
                line,
                location,
                f"duplicate {self.what} {shown!r} (already used by {earlier.location} at line {earlier.line}; "
                "expected a unique value)",
            )
            return False
        self.first[key] = Place(line, location)
        return True
