"""The measurement engine: every NIC pair of a round measured at once, whichever worker runs the items.

Scheduling puts the node-pair items of a check in rounds of disjoint node pairs. When the first item of a
round asks for its measurements, the engine of that process takes the round (a file lock in the run's
shared directory, so under pytest-xdist exactly one worker measures it), holds the NIC/GPU/port locks of the
whole round, measures every NIC pair of every node pair of the round concurrently (a ``concurrent.futures``
pool, at most ``fanout`` at once), and stores the measurements in the shared directory. Every item of the
round, in any process, then judges its own measurements. Commands run under their own item's name, so
recordings and replays stay per item and deterministic.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from pytest_gpufabric.measuring.rails import Measure, RailMeasurement, RunFunc, measure_one
from pytest_gpufabric.scheduling.locks import ResourceLocks, lock_file_name
from pytest_gpufabric.scheduling.resources import nic_resources
from pytest_gpufabric.scheduling.schedule_log import ScheduleLog
from pytest_gpufabric.targets import NicPairTarget, NodePairTarget
from pytest_gpufabric.transport.base import CommandResult

ItemRun = Callable[[str, str, "float | None", bool, str], CommandResult]  # node, command, timeout, cached, item
RailsOf = Callable[[str, NodePairTarget], "tuple[NicPairTarget, ...]"]  # check id, node pair -> NIC pairs to measure


@dataclass(frozen=True)
class RoundMember:
    """One node-pair item of a round (its NIC pairs are built when the round is measured, never stored)."""

    nodeid: str
    target: NodePairTarget


@dataclass(frozen=True)
class RoundPlan:
    """Round ``number`` of ``total`` of one check: its items (disjoint node pairs)."""

    check_id: str
    number: int
    total: int
    members: tuple[RoundMember, ...]

    @property
    def key(self) -> str:
        return f"{self.check_id}-round{self.number:05d}"



def rail_resources(pair: NicPairTarget) -> tuple[str, ...]:
    """The NICs, adjacent GPUs and perftest ports one NIC pair occupies."""
    return tuple(sorted({*nic_resources(pair.node_a, pair.nic_a), *nic_resources(pair.node_b, pair.nic_b)}))


class RoundEngine:
    """Measures rounds for the items of one pytest process (see the module docstring)."""

    def __init__(self, run: ItemRun, rails_of: RailsOf, locks: ResourceLocks, shared_dir: Path,
                 schedule: ScheduleLog | None, worker: str, fanout: int | None) -> None:
        """``shared_dir``: private to this run and shared by its processes (the run's lock directory and id)."""
        self._run = run
        self._rails_of = rails_of
        self._locks = locks
        self._shared_dir = shared_dir
        self._schedule = schedule
        self._worker = worker
        self._fanout = fanout
        self._plans: dict[str, RoundPlan] = {}
        self._measured: dict[str, dict[str, tuple[Any, ...]]] = {}
        self._started: dict[str, float] = {}  # round key -> wall-clock start of its measurement

    def plan(self, rounds: Iterable[RoundPlan]) -> None:
        """The rounds of this run (the same in every process: collection is deterministic)."""
        self._plans = {member.nodeid: plan for plan in rounds for member in plan.members}

    def plan_of(self, nodeid: str) -> RoundPlan | None:
        return self._plans.get(nodeid)

    def started(self, plan: RoundPlan) -> float | None:
        """When this run began measuring ``plan`` (wall clock), once this process has its measurements."""
        return self._started.get(plan.key)

    def measure(self, nodeid: str, rails: Sequence[NicPairTarget], measure: Measure[Any]) -> list[RailMeasurement[Any]]:
        """The measurements of ``nodeid``'s NIC pairs, measuring its whole round first if nobody has."""
        plan = self._plans.get(nodeid)
        if plan is None:  # not in a planned round (e.g. a test run on its own): the item's rails alone
            jobs = [(nodeid, pair) for pair in rails]
            return self._restore(self._measure_jobs("single", jobs, measure)[nodeid], rails)
        if nodeid not in self._measured:
            started, measured = self._take_round(plan, measure)
            self._started[plan.key] = started
            self._measured.update(measured)
        return self._restore(self._measured.pop(nodeid), rails)

    def _take_round(self, plan: RoundPlan, measure: Measure[Any]) -> tuple[float, dict[str, dict[str, tuple[Any, ...]]]]:
        self._shared_dir.mkdir(parents=True, exist_ok=True)
        stored = self._shared_dir / f"{lock_file_name(plan.key)}.pickle"
        with FileLock(str(stored) + ".lock"):
            if stored.exists():
                with stored.open("rb") as handle:
                    return pickle.load(handle)  # written by this run's own engine (a worker of this run)
            started = time.time()
            done = (started, self._measure_round(plan, measure))
            partial = stored.with_suffix(".partial")
            with partial.open("wb") as handle:
                pickle.dump(done, handle)
            os.replace(partial, stored)
            return done

    def _measure_round(self, plan: RoundPlan, measure: Measure[Any]) -> dict[str, dict[str, tuple[Any, ...]]]:
        jobs = [(member.nodeid, pair) for member in plan.members for pair in self._rails_of(plan.check_id, member.target)]
        return self._measure_jobs(plan.key, jobs, measure)

    def _measure_jobs(self, owner: str, jobs: list[tuple[str, NicPairTarget]],
                      measure: Measure[Any]) -> dict[str, dict[str, tuple[Any, ...]]]:
        resources = {name for _, pair in jobs for name in rail_resources(pair)}
        results: dict[str, dict[str, tuple[Any, ...]]] = {nodeid: {} for nodeid, _ in jobs}
        if not jobs:
            return results
        workers = max(1, min(self._fanout or len(jobs), len(jobs)))
        with self._locks.hold(resources, owner=f"{owner} [{self._worker}]"):
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gpufabric-round") as pool:
                futures = [pool.submit(self._measure_pair, nodeid, pair, measure) for nodeid, pair in jobs]
                for (nodeid, pair), future in zip(jobs, futures):
                    done = future.result()
                    results[nodeid][pair.id] = (done.value, done.commands, done.error_kind, done.error)
        return results

    def _measure_pair(self, nodeid: str, pair: NicPairTarget, measure: Measure[Any]) -> RailMeasurement[Any]:
        def run(node: str, command: str, timeout_s: float | None, cached: bool) -> CommandResult:
            return self._run(node, command, timeout_s, cached, nodeid)

        item_run: RunFunc = run
        if self._schedule is None:
            return measure_one(pair, measure, item_run)
        with self._schedule.span(nodeid, rail_resources(pair), self._worker):
            return measure_one(pair, measure, item_run)

    @staticmethod
    def _restore(measured: dict[str, tuple[Any, ...]], rails: Sequence[NicPairTarget]) -> list[RailMeasurement[Any]]:
        return [RailMeasurement(pair, *measured[pair.id]) for pair in rails]
