"""The measurement engine: every NIC pair of a round measured at once, whichever worker runs the items.

Scheduling puts the node-pair items of a check in rounds of disjoint node pairs. One process of the run
measures a check's rounds, in order: its driver, the first process whose item asks for one (a driver lock in
the run's shared directory; under pytest-xdist the other workers wait for their rounds, and take over if the
driver's session ends first). It measures every NIC pair of a round concurrently (at most ``fanout`` at once),
each holding its own NIC/GPU/port locks, and stores the round's measurements in the shared directory. Every
item of the round, in any process, then judges its own measurements. Commands run under their own item's
name, so recordings and replays stay per item and deterministic.

Rounds overlap without a barrier: the driver keeps two rounds going, and a NIC pair of the next round starts
as soon as the NIC pairs before it that share a NIC, GPU or port with it have ended (and their locks are
free), not when the slowest pair of the round has ended. So a round's stragglers delay only the pairs that
need their NICs, the next round's pairs run while the finished items are judged, and the start-up work of the
pairs (connections, processes) spreads over time instead of arriving all at once. No NIC, GPU or port is ever
used by two measurements at once (the locks, in every process).
"""

from __future__ import annotations

import os
import pickle
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.evidence_runner import RunFunc
from pytest_gpufabric.exclusive.locks import ResourceLocks, lock_file_name
from pytest_gpufabric.exclusive.names import rail_resources
from pytest_gpufabric.exclusive.schedule_log import ScheduleLog
from pytest_gpufabric.measuring.rails import Measure, RailMeasurement, measure_one
from pytest_gpufabric.targets import NicPairTarget, NodePairTarget
from pytest_gpufabric.transport.base import CommandResult

ItemRun = Callable[[str, str, "float | None", bool, str], CommandResult]  # node, command, timeout, cached, item
RailsOf = Callable[[str, NodePairTarget], "tuple[NicPairTarget, ...]"]  # check id, node pair -> NIC pairs to measure
DRIVER_POLL_S = 0.05  # how often an item waiting for its round looks for it (and for a driver that went away)


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



Measured = dict[str, dict[str, tuple[Any, ...]]]  # item node id -> NIC pair id -> (value, commands, kind, error)


@dataclass
class _RoundRun:
    """A round this process is measuring: its jobs and their futures, its file lock, when it started."""

    plan: RoundPlan
    lock: FileLock
    stored: Path
    started: float
    jobs: list[tuple[str, NicPairTarget]]
    futures: list[Future[RailMeasurement[Any]]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    result: tuple[float, Measured] | None = None


def _outcome(future: Future[RailMeasurement[Any]]) -> tuple[Any, ...]:
    """What one NIC pair's job gave, or why it gave nothing (a lock timeout, say)."""
    try:
        done = future.result()
    except Exception as exc:  # a job's own failure must not hide the round's other pairs
        return (None, (), type(exc).__name__, str(exc))
    return (done.value, done.commands, done.error_kind, done.error)


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
        self._slots = threading.BoundedSemaphore(fanout) if fanout else None  # NIC pairs measured at once
        self._plans: dict[str, RoundPlan] = {}
        self._rounds: dict[tuple[str, int], RoundPlan] = {}  # (check id, round number) -> round
        self._measured: Measured = {}
        self._started: dict[str, float] = {}  # round key -> wall-clock start of its measurement
        self._running: dict[str, _RoundRun] = {}  # round key -> a round this process measures
        self._last_use: dict[str, Future[RailMeasurement[Any]]] = {}  # resource -> the latest job that uses it
        self._guard = threading.RLock()  # rounds start from the items' thread and from a finished round's job
        self._measure_of: dict[str, Measure[Any]] = {}  # check id -> what its NIC pairs run
        self._closing = False
        self._interrupted = False
        self._driving: dict[str, FileLock] = {}  # check id -> this process drives its rounds (the run's driver lock)
        self._next_round: dict[str, int] = {}  # check id -> the number of the next round its driver starts

    def plan(self, rounds: Iterable[RoundPlan]) -> None:
        """The rounds of this run (the same in every process: collection is deterministic)."""
        rounds = tuple(rounds)
        self._plans = {member.nodeid: plan for plan in rounds for member in plan.members}
        self._rounds = {(plan.check_id, plan.number): plan for plan in rounds}

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

    def close(self, *, interrupted: bool = False) -> None:
        """Start no further round; wait for those this process still measures (bounded by their commands' own
        time limits), then let another process drive what is left. ``interrupted`` (Ctrl-C): no NIC pair starts
        any more (each one running is bounded on its nodes), nothing is waited for."""
        with self._guard:
            self._closing = True
            self._interrupted = interrupted
            running = list(self._running.values())
        if interrupted:
            return
        for run in running:
            run.done.wait()
        for check_id in list(self._driving):
            self._stop_driving(check_id)

    def _stored(self, plan: RoundPlan) -> Path:
        self._shared_dir.mkdir(parents=True, exist_ok=True)
        return self._shared_dir / f"{lock_file_name(plan.key)}.pickle"

    def _take_round(self, plan: RoundPlan, measure: Measure[Any]) -> tuple[float, Measured]:
        """The round's start time and measurements, from the check's driver: this process, or another one of the
        run (then read from what it stored). Nobody driving the check: this process becomes its driver."""
        stored = self._stored(plan)
        with self._guard:
            self._measure_of.setdefault(plan.check_id, measure)
        while True:
            with self._guard:
                run = self._running.get(plan.key)
            if run is not None:
                run.done.wait()
                assert run.result is not None
                return run.result
            if stored.exists():
                with stored.open("rb") as handle:
                    return pickle.load(handle)  # type: ignore[no-any-return]  # written by this run's own engine
            if not self._drive(plan.check_id):
                time.sleep(DRIVER_POLL_S)  # the driver has not reached this round yet

    def _drive(self, check_id: str) -> bool:
        """Become the driver of ``check_id`` if no process of the run is (its driver lock): measure its rounds in
        order from the first one not stored yet, two at a time. False when another process drives it, or this
        one already does."""
        with self._guard:
            if check_id in self._driving or self._closing:
                return False
            lock = FileLock(str(self._shared_dir / f"{lock_file_name(check_id)}.driver.lock"), thread_local=False)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                return False
            self._driving[check_id] = lock
            self._next_round[check_id] = 1
            if self._start_next(check_id):
                self._start_next(check_id)  # the next round's pairs start as their NICs come free
            else:
                self._stop_driving(check_id)
            return True

    def _start_next(self, check_id: str) -> bool:
        """As the driver: start the check's next round not stored yet; False when none is left."""
        while (plan := self._rounds.get((check_id, self._next_round[check_id]))) is not None:
            self._next_round[check_id] += 1
            if self._start_round(plan, self._measure_of[check_id]) is not None:
                return True
        return False

    def _stop_driving(self, check_id: str) -> None:
        with self._guard:
            lock = self._driving.pop(check_id, None)
        if lock is not None:
            lock.release()

    def _start_round(self, plan: RoundPlan, measure: Measure[Any]) -> _RoundRun | None:
        """Start measuring ``plan`` (its file lock; a previous driver may still be finishing it), None when it
        is stored already. Each job waits for the jobs before it that use one of its resources."""
        stored = self._stored(plan)
        lock = FileLock(str(stored) + ".lock", thread_local=False)  # released by the round's last job
        lock.acquire()
        if stored.exists():
            lock.release()
            return None
        jobs = [(member.nodeid, pair) for member in plan.members for pair in self._rails_of(plan.check_id, member.target)]
        run = _RoundRun(plan, lock, stored, time.time(), jobs)
        with self._guard:
            self._running[plan.key] = run
            self._submit(run, measure)
        return run

    def _submit(self, run: _RoundRun, measure: Measure[Any]) -> None:
        """Queue the round's jobs, each after the jobs before it on its resources; the last one ends the round."""
        plan, jobs = run.plan, run.jobs
        workers = max(1, min(self._fanout or len(jobs), len(jobs)))  # FIFO: a job waits only for earlier ones
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"gpufabric-{plan.key}")
        for nodeid, pair in jobs:
            resources = rail_resources(pair)
            before = {self._last_use[name] for name in resources if name in self._last_use}
            future = pool.submit(self._measure_after, before, plan.key, nodeid, pair, measure)
            for name in resources:
                self._last_use[name] = future
            run.futures.append(future)
        pool.shutdown(wait=False)  # its threads end with their jobs
        if not run.futures:
            self._finish(run)
            return
        remaining = [len(run.futures)]
        count = threading.Lock()

        def one_done(_: Future[RailMeasurement[Any]]) -> None:
            with count:
                remaining[0] -= 1
                last = remaining[0] == 0
            if last:
                self._finish(run)
        for future in run.futures:
            future.add_done_callback(one_done)

    def _measure_after(self, before: set[Future[RailMeasurement[Any]]], owner: str, nodeid: str, pair: NicPairTarget,
                       measure: Measure[Any]) -> RailMeasurement[Any]:
        """One NIC pair, once the jobs before it on its resources have ended, holding its own locks."""
        wait(before)
        if self._interrupted:
            raise MeasurementMissing(f"{pair.id}: not measured: the run was interrupted")
        if self._slots is not None:
            self._slots.acquire()
        try:
            with self._locks.hold(rail_resources(pair), owner=f"{owner} [{self._worker}]"):
                return self._measure_pair(nodeid, pair, measure)
        finally:
            if self._slots is not None:
                self._slots.release()

    def _finish(self, run: _RoundRun) -> None:
        """Store the round for every process of the run, release its lock, wake its items; as the driver, start
        the next round (or stop driving: none left, or closing)."""
        results: Measured = {nodeid: {} for nodeid, _ in run.jobs}
        for (nodeid, pair), future in zip(run.jobs, run.futures):
            results[nodeid][pair.id] = _outcome(future)
        run.result = (run.started, results)
        try:
            partial = run.stored.with_suffix(".partial")
            with partial.open("wb") as handle:
                pickle.dump(run.result, handle)
            os.replace(partial, run.stored)
        finally:
            run.lock.release()
            run.done.set()
        check_id = run.plan.check_id
        with self._guard:
            self._running.pop(run.plan.key, None)
            if check_id in self._driving and (self._closing or not self._start_next(check_id)):
                if not any(other.plan.check_id == check_id for other in self._running.values()):
                    self._stop_driving(check_id)

    def _measure_jobs(self, owner: str, jobs: list[tuple[str, NicPairTarget]],
                      measure: Measure[Any]) -> Measured:
        """Items outside the planned rounds: their NIC pairs at once, holding all their locks."""
        resources = {name for _, pair in jobs for name in rail_resources(pair)}
        results: Measured = {nodeid: {} for nodeid, _ in jobs}
        if not jobs:
            return results
        workers = max(1, min(self._fanout or len(jobs), len(jobs)))
        with self._locks.hold(resources, owner=f"{owner} [{self._worker}]"):
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gpufabric-round") as pool:
                futures = [pool.submit(self._measure_pair, nodeid, pair, measure) for nodeid, pair in jobs]
                for (nodeid, pair), future in zip(jobs, futures):
                    results[nodeid][pair.id] = _outcome(future)
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
