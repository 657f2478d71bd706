"""The estimate printed before a pair sweep: each check's rounds and its duration from the profile's per-test time.

All NIC pairs of a round are measured at once (see measuring/engine.py), so a round takes one NIC-pair test,
or ``ceil(NIC pairs of the round / --fanout)`` tests one after the other when the fan-out is smaller. The
per-test time comes from the profile (``test_times``) with its source; a check without one is said to have
no estimate, never given a made-up one. A sweep longer than ``WARN_AFTER_S`` gets a warning with the
``--pair-policy=rounds:K`` that fits in that time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.measuring.engine import RoundPlan
from pytest_gpufabric.measuring.mesh import MeshPlan, MeshSpec

WARN_AFTER_S = 3 * 3600.0  # "a few hours"


@dataclass(frozen=True)
class CheckSweep:
    """The planned sweep of one pair check: its rounds, node pairs and the NIC pairs of its largest round."""

    check_id: str
    rounds: int
    node_pairs: int
    largest_round_nic_pairs: int

    def as_dict(self) -> dict[str, object]:
        return {"check_id": self.check_id, "rounds": self.rounds, "node_pairs": self.node_pairs,
                "largest_round_nic_pairs": self.largest_round_nic_pairs}


def planned_sweeps(plans: Iterable[RoundPlan]) -> list[CheckSweep]:
    """One ``CheckSweep`` per check of the round plans, in plan order (NIC pairs counted for one round each)."""
    by_check: dict[str, list[RoundPlan]] = {}
    for plan in plans:
        by_check.setdefault(plan.check_id, []).append(plan)
    sweeps = []
    for check_id, rounds in by_check.items():
        largest = max(rounds, key=lambda plan: len(plan.members))
        nic_pairs = sum(len(member.target.rail_pairs()) for member in largest.members)
        sweeps.append(CheckSweep(check_id, len(rounds), sum(len(plan.members) for plan in rounds), nic_pairs))
    return sweeps


def duration_text(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 05 min``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60:02d} min"


def _waves(sweep: CheckSweep, fanout: int | None) -> int:
    """NIC-pair tests one after the other in a round: 1 when the fan-out covers the round."""
    return max(1, math.ceil(sweep.largest_round_nic_pairs / fanout)) if fanout else 1


def estimate_lines(sweeps: list[CheckSweep], profile: Profile, policy: str, fanout: int | None) -> list[str]:
    """The lines printed before the sweep (empty when there is no pair sweep)."""
    lines = []
    total_s = 0.0
    round_s = 0.0  # one round of every check with a per-test time
    for sweep in sweeps:
        head = (f"{sweep.check_id} sweep: {sweep.rounds} rounds, {sweep.node_pairs} node pairs "
                f"(up to {sweep.largest_round_nic_pairs} NIC pairs at once)")
        time = profile.test_times.get(sweep.check_id)
        if time is None:
            lines.append(f"{head}; no estimate: profile {profile.name} gives no per-test time for {sweep.check_id}")
            continue
        waves = _waves(sweep, fanout)
        seconds = sweep.rounds * waves * time.seconds
        total_s += seconds
        round_s += waves * time.seconds
        per_round = f"{time.seconds:g} s per NIC-pair test" + (f" x {waves} (--fanout={fanout})" if waves > 1 else "")
        lines.append(f"{head}; estimated {duration_text(seconds)} ({sweep.rounds} rounds x {per_round}; "
                     f"profile {profile.name}: {time.source})")
    if not lines:
        return []
    timed = sum(sweep.check_id in profile.test_times for sweep in sweeps)
    lines.append(f"pair sweeps ({policy}): estimated {duration_text(total_s)} for the {timed} of {len(sweeps)} "
                 "checks with a per-test time")
    if total_s > WARN_AFTER_S:
        rounds = max(1, math.floor(WARN_AFTER_S / round_s))
        lines.append(f"WARNING: the pair sweeps take about {duration_text(total_s)}, more than "
                     f"{duration_text(WARN_AFTER_S)}; --pair-policy=rounds:{rounds} measures {rounds} rounds per check "
                     f"(about {duration_text(rounds * round_s)})")
    return lines


def mesh_estimate_lines(plan: MeshPlan, spec: MeshSpec) -> list[str]:
    """The line printed before a mesh check: its nodes, waves and the time of its busiest node's probes (all
    nodes of a wave probe at once, so a wave takes about that long)."""
    probing = [name for wave in plan.waves for name in wave]
    if not probing:
        return []
    busiest = max(probing, key=lambda name: len(plan.peers[name]))
    ways = "both ways" if getattr(spec, "both_ways", True) else "one way"
    head = (f"{plan.check_id} mesh: {len(probing)} nodes, each probing its peers (up to {len(plan.peers[busiest])}) at once "
            f"and {ways}, {len(plan.waves)} wave(s); {len(plan.items)} node-pair items")
    seconds = spec.seconds(plan.nodes[busiest], plan.peers[busiest])
    how = getattr(spec, "how", lambda: "")()
    if seconds is None:
        return [f"{head}; no estimate ({how}: no document gives the time of one probe)"]
    return [f"{head}; estimated {duration_text(seconds * len(plan.waves))} ({how})"]
