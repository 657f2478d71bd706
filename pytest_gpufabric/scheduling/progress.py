"""One terminal line per finished round of a pair sweep: round k/N, pairs done, failures so far, elapsed,
remaining (estimated from the rounds done so far). Fed from the reports, so it works on the xdist controller
(which never collects) as in a single process."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RoundProgress:
    """Counts the reported items of each round; ``write`` gets one line when a round is complete."""

    write: Callable[[str], None]
    clock: Callable[[], float] = time.time  # wall clock: rounds start in other processes
    _started: dict[str, float] = field(default_factory=dict)
    _done: dict[tuple[str, int], int] = field(default_factory=dict)
    _rounds_done: dict[str, int] = field(default_factory=dict)
    _pairs: dict[str, int] = field(default_factory=dict)
    _failures: dict[str, int] = field(default_factory=dict)

    def add(self, info: dict[str, Any], nic_pairs: int, failed_pairs: int) -> None:
        """``info``: check, number, total, members and started (wall clock) of the item's round; the item's
        NIC pairs measured and failing."""
        check = str(info["check"])
        now = self.clock()
        started = self._started[check] = min(self._started.get(check, now), float(info.get("started") or now))
        key = (check, int(info["number"]))
        self._done[key] = self._done.get(key, 0) + 1
        self._failures[check] = self._failures.get(check, 0) + failed_pairs
        self._pairs[check] = self._pairs.get(check, 0) + nic_pairs
        if self._done[key] < int(info["members"]):
            return
        self._rounds_done[check] = self._rounds_done.get(check, 0) + 1
        done, total = self._rounds_done[check], int(info["total"])
        elapsed = now - started
        remaining = elapsed / done * (total - done)
        if info.get("kind") == "mesh":  # a wave of nodes probing their peers; its items judged
            probed = f"nodes probed in {info['probed_s']:.1f} s, " if info.get("probed_s") is not None else ""
            self.write(f"{check} mesh wave {info['number']}/{total} done: {probed}{self._pairs[check]} node pairs judged, "
                       f"{self._failures[check]} failing so far, elapsed {elapsed:.1f} s, remaining ~{remaining:.0f} s")
            return
        self.write(f"{check} round {info['number']}/{total} done ({done}/{total} rounds): {self._pairs[check]} NIC pairs "
                   f"measured, {self._failures[check]} failing so far, elapsed {elapsed:.1f} s, remaining ~{remaining:.0f} s")
