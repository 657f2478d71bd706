"""The measurement engine: every NIC pair of a round measured at once, whichever worker runs the items.

Scheduling puts the node-pair items of a check in rounds of disjoint node pairs. The processes of the run that
reach a round measure it: each round is split in ``shares`` parts of disjoint items (under xdist, one per
worker), and each part's rounds are driven, in order, by one process (a driver lock per part in the run's shared
directory): the process whose own part it is (``own_share``: worker N drives part N), as soon as any of its items
asks for a round of the check; another process takes a part over only when nobody has driven it for
``TAKEOVER_S`` while its items wait (a worker that got none of the check's items, or whose session ended). So with
K workers each measures about 1/K of every round (the first process to ask took every part before: measured at
256 x 8 with ``-n 2``, one worker measured all 128 node pairs). A driver measures the
jobs of a round concurrently (at most ``fanout`` NIC pairs at once), each holding its own NIC/GPU/port locks, and
stores the round's measurements for every process of the run. Every item of the round, in any process, then
judges its own measurements. Commands run under their own item's name, so recordings and replays stay per item
and deterministic. A run of one process (``shares`` 1: ``-n 0``) keeps its rounds in memory for its items instead
(the store cost 0.55-0.64 CPU-s at a 1,024 x 8 round, for nobody to read), up to ``KEPT_ROUNDS`` waiting for their
items at once: a driver ahead of its items (a replay) stores the rounds after those, so memory stays bounded.

A job is one NIC pair (a ``Measure``), or all the NIC pairs of a node pair together (a ``NodePairMeasure``:
one command per node and step for all its rails, e.g. every perftest server of a node at once).

Rounds overlap without a barrier: a driver keeps two rounds going, and a job of the next round starts as soon as
the jobs before it that share a NIC, GPU or port with it have ended (and their locks are free), not when the
slowest job of the round has ended. So a round's stragglers delay only the jobs that need their NICs, the next
round's jobs run while the finished items are judged, and the start-up work (connections, processes) spreads
over time instead of arriving all at once. No NIC, GPU or port is ever used by two measurements at once (the
locks, in every process, taken all at once or not at all).

With a ``RunControl`` (``measuring.control``) the engine also contains failures: each job is bounded by its
check's expected duration of one NIC-pair test (the NIC pairs of a node pair run side by side, so their job takes
as long as one: its commands on their nodes, and the job in the engine), a NIC pair of a node or NIC marked down
errors at once with the first cause (the job measures the others), a stopped run starts no job, each command runs
with its node-side PID file and leases, and a job refused by another run's lease is tried again (holding no lock
meanwhile) until the leftovers of a stopped run would have ended, then the run stops naming the holder. A driver
that died (its marker left behind) stops the run instead of being replaced.
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

from pytest_gpufabric.errors import GpufabricError, MeasurementMissing
from pytest_gpufabric.evidence_runner import RunFunc
from pytest_gpufabric.exclusive.leases import LeaseBusy, NodeGuard
from pytest_gpufabric.exclusive.locks import ResourceLocks, lock_file_name
from pytest_gpufabric.exclusive.names import rail_resources
from pytest_gpufabric.exclusive.schedule_log import ScheduleLog, ScheduleRecord
from pytest_gpufabric.measuring.control import (
    NIC_DOWN_AFTER,
    UNREACHABLE,
    WATCHDOG_SLACK_S,
    RunControl,
    command_timeout,
    link_down_state,
    operstate_command,
)
from pytest_gpufabric.measuring.rails import NodePairMeasure, RailMeasurement, measure_one, measure_together
from pytest_gpufabric.targets import NicPairTarget, NodePairTarget
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.bounded import KILL_GRACE_S

ItemRun = Callable[[str, str, "float | None", bool, str, "NodeGuard | None"], CommandResult]  # node, command, timeout, cached, item, guard
RailsOf = Callable[[str, NodePairTarget], "tuple[NicPairTarget, ...]"]  # check id, node pair -> NIC pairs to measure
DRIVER_POLL_S = 0.05  # how often an item waiting for its round looks for it (and for a driver that went away)
LEASE_PAUSE_S = 1.0  # pause before a job refused by another run's lease is tried again
UNBOUNDED_LEASE_WAIT_S = 60.0  # longest wait for another run's lease where the check has no bound
SPLIT_FROM_NODE_PAIRS = 32  # rounds this large are shared by the run's processes (RoundPlan.split)
TAKEOVER_S = 5.0  # how long items wait for another process's part of a round before this process drives it
KEPT_ROUNDS = 2  # rounds a run of one process keeps in memory for its items at once (the rest are stored)


@dataclass(frozen=True)
class RoundMember:
    """One node-pair item of a round (its NIC pairs are built when the round is measured, never stored)."""

    nodeid: str
    target: NodePairTarget


@dataclass(frozen=True)
class RoundPlan:
    """Round ``number`` of ``total`` of one check: its items (disjoint node pairs); ``share`` of ``shares``: the
    part of the round one process of the run drives (every ``shares``-th item, from the ``share``-th)."""

    check_id: str
    number: int
    total: int
    members: tuple[RoundMember, ...]
    share: int = 0
    shares: int = 1

    @property
    def key(self) -> str:
        return f"{self.check_id}-round{self.number:05d}" + (f"-share{self.share}" if self.shares > 1 else "")

    @property
    def lane(self) -> str:
        """What one driver drives: a check's rounds, or one share of each (``CHECK#share``)."""
        return f"{self.check_id}#{self.share}" if self.shares > 1 else self.check_id

    def split(self, shares: int) -> list[RoundPlan]:
        """The round in ``shares`` parts of disjoint items (empty parts left out); a round of fewer than
        ``SPLIT_FROM_NODE_PAIRS`` node pairs stays whole: its controller work is small, and parts driven by two
        processes wait for each other's NICs through file locks (measured on the 16-node lab, 8 node pairs a
        round: 28.3 s split in 2 against 20.4 s whole)."""
        if shares <= 1 or len(self.members) < SPLIT_FROM_NODE_PAIRS:
            return [self]
        parts = [RoundPlan(self.check_id, self.number, self.total, self.members[share::shares], share, shares)
                 for share in range(shares)]
        return [part for part in parts if part.members]



Measured = dict[str, dict[str, tuple[Any, ...]]]  # item node id -> NIC pair id -> (value, commands, kind, error)
AnyMeasure = "Measure[Any] | NodePairMeasure[Any]"  # one NIC pair a job, or all of a node pair's at once
Job = tuple[str, tuple[NicPairTarget, ...]]  # an item and the NIC pairs one job measures


def job_resources(pairs: Sequence[NicPairTarget]) -> tuple[str, ...]:
    """The NICs, GPUs and perftest ports of every NIC pair of a job, sorted."""
    return tuple(sorted({name for pair in pairs for name in rail_resources(pair)}))


def _names(pairs: Sequence[NicPairTarget]) -> str:
    return ", ".join(pair.id for pair in pairs)


@dataclass
class _RoundRun:
    """A round this process is measuring: its jobs and their futures, its file lock, when it started."""

    plan: RoundPlan
    lock: FileLock
    stored: Path
    started: float
    jobs: list[Job]
    futures: list[Future[list[RailMeasurement[Any]]]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    result: tuple[float, Measured] | None = None


def _lease_wait(bound: float | None) -> float:
    """How long a job waits for another run's lease: as long as a stopped run's commands may still live."""
    return (bound if bound is not None else UNBOUNDED_LEASE_WAIT_S) + KILL_GRACE_S + LEASE_PAUSE_S


def _outcomes(future: Future[list[RailMeasurement[Any]]], pairs: Sequence[NicPairTarget]) -> dict[str, tuple[Any, ...]]:
    """What each NIC pair of a job gave, or why it gave nothing (a lock timeout, say)."""
    try:
        done = future.result()
    except Exception as exc:  # a job's own failure must not hide the round's other pairs
        return {pair.id: (None, (), type(exc).__name__, str(exc)) for pair in pairs}
    return {found.pair.id: (found.value, found.commands, found.error_kind, found.error) for found in done}


class RoundEngine:
    """Measures rounds for the items of one pytest process (see the module docstring)."""

    def __init__(self, run: ItemRun, rails_of: RailsOf, locks: ResourceLocks, shared_dir: Path,
                 schedule: ScheduleLog | None, worker: str, fanout: int | None, shares: int = 1, own_share: int = 0,
                 control: RunControl | None = None) -> None:
        """``shared_dir``: private to this run and shared by its processes (the run's lock directory and id);
        ``shares``: the processes of the run that measure (each round is driven in that many parts); ``own_share``:
        the part this process drives (under xdist, worker N drives part N of every round)."""
        self._run = run
        self._control = control
        self._nic_failures: dict[str, int] = {}  # NIC -> NIC pairs in a row that could not exchange traffic
        self._rails_of = rails_of
        self._locks = locks
        self._shared_dir = shared_dir
        self._schedule = schedule
        self._worker = worker
        self._fanout = fanout
        self._slots = threading.BoundedSemaphore(fanout) if fanout else None  # NIC pairs measured at once
        self._shares = max(1, shares)
        self._own_share = own_share % self._shares
        self._plans: dict[str, RoundPlan] = {}  # item -> the part of its round it is measured in
        self._whole: dict[str, RoundPlan] = {}  # item -> its whole round (progress lines)
        self._lanes: dict[str, list[RoundPlan]] = {}  # lane -> its rounds (parts) in order
        self._measured: Measured = {}
        self._started: dict[str, float] = {}  # round key -> wall-clock start of its measurement
        self._running: dict[str, _RoundRun] = {}  # round key -> a round this process measures
        self._last_use: dict[str, Future[list[RailMeasurement[Any]]]] = {}  # resource -> the latest job that uses it
        self._guard = threading.RLock()  # rounds start from the items' thread and from a finished round's job
        self._measure_of: dict[str, Any] = {}  # lane -> what its NIC pairs run (AnyMeasure)
        self._closing = False
        self._interrupted = False
        self._driving: dict[str, FileLock] = {}  # lane -> this process drives its rounds (the run's driver lock)
        self._next_round: dict[str, int] = {}  # lane -> the index of the next round its driver starts
        self._kept: dict[str, tuple[float, Measured]] = {}  # round key -> its measurements, in memory only (one process)
        self._handed: set[str] = set()  # rounds kept in memory whose measurements went to their items

    def plan(self, rounds: Iterable[RoundPlan]) -> None:
        """The rounds of this run (the same in every process: collection is deterministic)."""
        rounds = tuple(rounds)
        self._whole = {member.nodeid: plan for plan in rounds for member in plan.members}
        parts = [part for plan in rounds for part in plan.split(self._shares)]
        self._plans = {member.nodeid: part for part in parts for member in part.members}
        self._lanes = {}
        for part in parts:
            self._lanes.setdefault(part.lane, []).append(part)

    def plan_of(self, nodeid: str) -> RoundPlan | None:
        """The whole round of an item."""
        return self._whole.get(nodeid)

    def started(self, plan: RoundPlan) -> float | None:
        """When this run began measuring ``plan`` (wall clock; the earliest of its parts this process has read)."""
        return self._started.get(plan.key)

    def measure(self, nodeid: str, rails: Sequence[NicPairTarget], measure: Any) -> list[RailMeasurement[Any]]:
        """The measurements of ``nodeid``'s NIC pairs (``measure``: an AnyMeasure), measuring its whole round first
        if nobody has."""
        plan = self._plans.get(nodeid)
        if plan is None or self._handed_out(plan, nodeid):  # the item's rails alone
            return self._restore(self._measure_jobs("single", self._jobs(nodeid, tuple(rails), measure), measure)[nodeid], rails)
        if nodeid not in self._measured:
            started, measured = self._take_round(plan, measure)
            whole = self._whole[nodeid].key
            self._started[whole] = min(started, self._started.get(whole, started))
            self._measured.update(measured)
        return self._restore(self._measured.pop(nodeid), rails)

    def _handed_out(self, plan: RoundPlan, nodeid: str) -> bool:
        """Whether ``nodeid`` asks again for a round this process measured and stored nowhere: its measurements
        were handed to it already, so it is measured again on its own."""
        with self._guard:
            return nodeid not in self._measured and plan.key in self._handed

    def close(self, *, interrupted: bool = False) -> None:
        """Start no further round; wait for those this process still measures (bounded by their commands' own
        time limits), then let another process drive what is left. ``interrupted`` (Ctrl-C): no NIC pair starts
        any more (each one running is bounded on its nodes), nothing is waited for."""
        with self._guard:
            self._closing = True
            self._interrupted = self._interrupted or interrupted
            running = list(self._running.values())
        if self._interrupted:
            return
        for run in running:
            run.done.wait()
        for lane in list(self._driving):
            self._stop_driving(lane)

    def halt(self) -> None:
        """Start no further NIC pair, from now on (the run stopped); those running end by their stop or bound."""
        with self._guard:
            self._interrupted = True

    def _stored(self, plan: RoundPlan) -> Path:
        self._shared_dir.mkdir(parents=True, exist_ok=True)
        return self._shared_dir / f"{lock_file_name(plan.key)}.pickle"

    def _take_round(self, plan: RoundPlan, measure: Any) -> tuple[float, Measured]:
        """The round's start time and measurements, from the check's driver: this process, or another one of the
        run (then read from what it stored). Nobody driving the check: this process becomes its driver."""
        stored = self._stored(plan)
        own = f"{plan.check_id}#{self._own_share}"
        with self._guard:
            self._measure_of.setdefault(plan.lane, measure)
            if plan.shares > 1 and own in self._lanes:
                self._measure_of.setdefault(own, measure)
        if plan.shares > 1 and own in self._lanes:
            self._drive(own)  # this process's own part of the check's rounds, whichever part this item is in
        waiting_since = time.monotonic()
        while True:
            with self._guard:
                run = self._running.get(plan.key)
            if run is not None:
                while not run.done.wait(DRIVER_POLL_S * 4):
                    pass  # a bounded wait: the main thread handles a stop signal meanwhile
                assert run.result is not None
                self._claim_kept(plan)
                return run.result
            kept = self._claim_kept(plan)
            if kept is not None:
                return kept
            if stored.exists():
                with stored.open("rb") as handle:
                    return pickle.load(handle)  # type: ignore[no-any-return]  # written by this run's own engine
            mine = plan.shares == 1 or plan.share == self._own_share
            if not ((mine or time.monotonic() - waiting_since >= TAKEOVER_S) and self._drive(plan.lane)):
                time.sleep(DRIVER_POLL_S)  # the driver has not reached this round yet

    def _claim_kept(self, plan: RoundPlan) -> tuple[float, Measured] | None:
        """The measurements of a round this process kept in memory (one process), handed out once."""
        with self._guard:
            kept = self._kept.pop(plan.key, None)
            if kept is not None:
                self._handed.add(plan.key)
            return kept

    def _drive(self, lane: str) -> bool:
        """Become the driver of ``check_id`` if no process of the run is (its driver lock): measure its rounds in
        order from the first one not stored yet, two at a time. False when another process drives it, or this
        one already does."""
        with self._guard:
            if lane in self._driving or self._closing:
                return False
            lock = FileLock(str(self._shared_dir / f"{lock_file_name(lane)}.driver.lock"), thread_local=False)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                return False
            self._driving[lane] = lock
            self._claim_driver_marker(lane)
            self._next_round[lane] = 0
            if self._start_next(lane):
                self._start_next(lane)  # the next round's pairs start as their NICs come free
            else:
                self._stop_driving(lane)
            return True

    def _start_next(self, lane: str) -> bool:
        """As the driver: start the lane's next round not stored yet; False when none is left."""
        rounds = self._lanes.get(lane, [])
        while self._next_round[lane] < len(rounds):
            plan = rounds[self._next_round[lane]]
            self._next_round[lane] += 1
            if self._start_round(plan, self._measure_of[lane]) is not None:
                return True
        return False

    def _stop_driving(self, lane: str) -> None:
        with self._guard:
            lock = self._driving.pop(lane, None)
        if lock is not None:
            self._driver_marker(lane).unlink(missing_ok=True)
            lock.release()

    def _driver_marker(self, lane: str) -> Path:
        return self._shared_dir / f"{lock_file_name(lane)}.driver"

    def _claim_driver_marker(self, lane: str) -> None:
        """Leave this driver's marker (its PID and worker), removed when it hands over. A marker found means the
        previous driver died while measuring: with a RunControl the run stops (its traffic may still be running;
        nothing is measured beside it)."""
        marker = self._driver_marker(lane)
        if marker.exists() and self._control is not None:
            previous = marker.read_text(encoding="utf-8").strip() or "unknown"
            self._control.stop.set(f"the process driving {lane} died ({previous})")
            self._interrupted = True
        marker.write_text(f"pid {os.getpid()} {self._worker}\n", encoding="utf-8")

    @staticmethod
    def _jobs(nodeid: str, pairs: tuple[NicPairTarget, ...], measure: Any) -> list[Job]:
        """A node pair's NIC pairs as jobs: one together (NodePairMeasure), else one job each."""
        if isinstance(measure, NodePairMeasure):
            return [(nodeid, pairs)] if pairs else []
        return [(nodeid, (pair,)) for pair in pairs]

    def _start_round(self, plan: RoundPlan, measure: Any) -> _RoundRun | None:
        """Start measuring ``plan`` (its file lock; a previous driver may still be finishing it), None when it
        is stored already. Each job waits for the jobs before it that use one of its resources."""
        stored = self._stored(plan)
        lock = FileLock(str(stored) + ".lock", thread_local=False)  # released by the round's last job
        lock.acquire()
        if stored.exists() or plan.key in self._kept or plan.key in self._handed:
            lock.release()
            return None
        jobs = [job for member in plan.members
                for job in self._jobs(member.nodeid, self._rails_of(plan.check_id, member.target), measure)]
        run = _RoundRun(plan, lock, stored, time.time(), jobs)
        with self._guard:
            self._running[plan.key] = run
            self._submit(run, measure)
        return run

    def _submit(self, run: _RoundRun, measure: Any) -> None:
        """Queue the round's jobs, each after the jobs before it on its resources; the last one ends the round."""
        plan, jobs = run.plan, run.jobs
        workers = max(1, min(self._fanout or len(jobs), len(jobs)))  # FIFO: a job waits only for earlier ones
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"gpufabric-{plan.key}")
        for nodeid, pairs in jobs:
            resources = job_resources(pairs)
            before = {self._last_use[name] for name in resources if name in self._last_use}
            future = pool.submit(self._measure_after, before, plan, nodeid, pairs, measure)
            for name in resources:
                self._last_use[name] = future
            run.futures.append(future)
        pool.shutdown(wait=False)  # its threads end with their jobs
        if not run.futures:
            self._finish(run)
            return
        remaining = [len(run.futures)]
        count = threading.Lock()

        def one_done(_: Future[list[RailMeasurement[Any]]]) -> None:
            with count:
                remaining[0] -= 1
                last = remaining[0] == 0
            if last:
                self._finish(run)
        for future in run.futures:
            future.add_done_callback(one_done)

    def _measure_after(self, before: set[Future[list[RailMeasurement[Any]]]], plan: RoundPlan, nodeid: str,
                       pairs: tuple[NicPairTarget, ...], measure: Any) -> list[RailMeasurement[Any]]:
        """One job, once the jobs before it on its resources have ended, holding its own locks; its NIC pairs of a
        node or NIC marked down are refused at once, the others measured."""
        wait(before)
        self._refuse_if_stopped(pairs)
        down = {pair.id: found for pair in pairs if (found := self._down(pair)) is not None}
        live = tuple(pair for pair in pairs if pair.id not in down)
        if not live:
            return [down[pair.id] for pair in pairs]
        if self._slots is not None:
            self._slots.acquire()
        try:
            measured = {found.pair.id: found for found in self._measure_leased(plan, nodeid, live, measure)}
        finally:
            if self._slots is not None:
                self._slots.release()
        return [down.get(pair.id) or measured[pair.id] for pair in pairs]

    def _refuse_if_stopped(self, pairs: Sequence[NicPairTarget]) -> None:
        reason = self._control.stop.reason() if self._control is not None else None
        if reason is not None:
            raise MeasurementMissing(f"{_names(pairs)}: not measured: the run stopped: {reason}")
        if self._interrupted:
            raise MeasurementMissing(f"{_names(pairs)}: not measured: the run was interrupted")

    def _down(self, pair: NicPairTarget) -> RailMeasurement[Any] | None:
        """The refusal of a NIC pair whose node or NIC is marked down (None: both ends are up)."""
        if self._control is None:
            return None
        for name in (pair.node_a.name, pair.node_b.name, f"{pair.node_a.name}/{pair.nic_a.name}",
                     f"{pair.node_b.name}/{pair.nic_b.name}"):
            cause = self._control.marks.cause(name)
            if cause is not None:
                return RailMeasurement(pair, None, (), "down", f"{name} is down for the rest of the run: {cause}")
        return None

    def _measure_leased(self, plan: RoundPlan, nodeid: str, pairs: tuple[NicPairTarget, ...],
                        measure: Any) -> list[RailMeasurement[Any]]:
        """Measure holding the job's locks; a job refused by another run's node lease is tried again, holding no
        lock while it waits, until the leftovers of a stopped run would have ended; then the run stops."""
        waited_until: float | None = None
        bound = self._control.bound_of(plan.check_id) if self._control is not None else None
        while True:
            with self._locks.hold(job_resources(pairs), owner=f"{plan.key} [{self._worker}]"):
                started = time.time()  # its start in the schedule log: a stop set after it finds the job started
                self._refuse_if_stopped(pairs)
                outcomes = self._measure_bounded(bound, nodeid, pairs, measure, started)
            busy = next((found for found in outcomes if found.error_kind == LeaseBusy.__name__), None)
            if busy is None or self._control is None:
                break
            waited_until = waited_until or time.monotonic() + _lease_wait(bound)
            if time.monotonic() >= waited_until:
                self._control.stop.set(f"the cluster is busy: {busy.error}")
                break
            time.sleep(LEASE_PAUSE_S)
        return self._judge_ends(nodeid, outcomes)

    def _measure_bounded(self, bound: float | None, nodeid: str, pairs: tuple[NicPairTarget, ...], measure: Any,
                         started: float) -> list[RailMeasurement[Any]]:
        """Measure within the check's ``bound``: each command gets what is left of it, and the engine gives up on a
        job that has not ended ``WATCHDOG_SLACK_S`` after it (a hung connection; its thread is left behind)."""
        if bound is None:
            return self._measure_job(nodeid, pairs, measure, started=started)
        deadline = time.monotonic() + bound
        done: list[list[RailMeasurement[Any]] | BaseException] = []

        def measure_in_thread() -> None:
            try:
                done.append(self._measure_job(nodeid, pairs, measure, deadline, started))
            except BaseException as exc:  # handed to the waiting job
                done.append(exc)
        thread = threading.Thread(target=measure_in_thread, name=f"gpufabric-{pairs[0].id}", daemon=True)
        thread.start()
        thread.join(bound + WATCHDOG_SLACK_S)
        if not done:
            return [RailMeasurement(pair, None, (), UNREACHABLE, f"{pair.id}: did not end within {bound + WATCHDOG_SLACK_S:g} s "
                                    f"(its bound of {bound:g} s and {WATCHDOG_SLACK_S:g} s for its commands to end)")
                    for pair in pairs]
        if isinstance(done[0], BaseException):
            raise done[0]
        return done[0]

    def _judge_ends(self, nodeid: str, outcomes: list[RailMeasurement[Any]]) -> list[RailMeasurement[Any]]:
        """After a NIC pair that could not exchange traffic: read both links, and mark down a NIC whose link is not
        up or that failed ``NIC_DOWN_AFTER`` NIC pairs in a row (the reads join the pair's evidence). Nothing is
        judged once the run stopped (its stop ended the commands, not the links)."""
        if self._control is None or self._control.stop.reason() is not None:
            return outcomes
        return [self._judge_pair_ends(nodeid, outcome) for outcome in outcomes]

    def _judge_pair_ends(self, nodeid: str, outcome: RailMeasurement[Any]) -> RailMeasurement[Any]:
        """A NIC pair that gave no measurement has its links read (a link that went down in the middle of its run
        can leave another error than "could not exchange traffic": a server stopped before it printed); only
        pairs that could not exchange traffic count towards ``NIC_DOWN_AFTER``."""
        assert self._control is not None
        pair = outcome.pair
        if outcome.error_kind in ("down", LeaseBusy.__name__):
            return outcome
        ends = ((pair.node_a, pair.nic_a), (pair.node_b, pair.nic_b))
        unreachable = outcome.error_kind == UNREACHABLE
        if not unreachable:
            with self._guard:
                for node, nic in ends:
                    self._nic_failures.pop(f"{node.name}/{nic.name}", None)
            if outcome.error_kind is None:  # measured
                return outcome
        reads: list[CommandResult] = []
        for node, nic in ends:
            name = f"{node.name}/{nic.name}"
            failures = 0
            if unreachable:
                with self._guard:
                    failures = self._nic_failures[name] = self._nic_failures.get(name, 0) + 1
            try:
                read = self._run(node.name, operstate_command(nic.netdev), 10.0, False, nodeid, None)
            except GpufabricError:
                continue  # a node that cannot be read is the transport's to mark
            reads.append(read)
            state = link_down_state(read)
            if state is not None:
                self._control.marks.mark(name, f"link {state} ({outcome.error})")
            elif unreachable and failures >= NIC_DOWN_AFTER:
                self._control.marks.mark(name, f"{failures} NIC pairs in a row could not exchange traffic (last: {outcome.error})")
        return RailMeasurement(pair, None, (*outcome.commands, *reads), outcome.error_kind, outcome.error)

    def _finish(self, run: _RoundRun) -> None:
        """Store the round for the other processes of the run (none: kept in memory, unless ``KEPT_ROUNDS`` wait for
        their items already), release its lock, wake its items; as the driver, start the next round (or stop
        driving: none left, or closing)."""
        results: Measured = {nodeid: {} for nodeid, _ in run.jobs}
        for (nodeid, pairs), future in zip(run.jobs, run.futures):
            results[nodeid].update(_outcomes(future, pairs))
        run.result = (run.started, results)
        try:
            with self._guard:
                keep = self._shares == 1 and len(self._kept) < KEPT_ROUNDS
                if keep:
                    self._kept[run.plan.key] = run.result
            if not keep:
                partial = run.stored.with_suffix(".partial")
                with partial.open("wb") as handle:
                    pickle.dump(run.result, handle)
                os.replace(partial, run.stored)
        finally:
            run.lock.release()
            run.done.set()
        lane = run.plan.lane
        with self._guard:
            self._running.pop(run.plan.key, None)
            if lane in self._driving and (self._closing or not self._start_next(lane)):
                if not any(other.plan.lane == lane for other in self._running.values()):
                    self._stop_driving(lane)

    def _measure_jobs(self, owner: str, jobs: list[Job], measure: Any) -> Measured:
        """Items outside the planned rounds: their NIC pairs at once, holding all their locks."""
        resources = {name for _, pairs in jobs for name in job_resources(pairs)}
        results: Measured = {nodeid: {} for nodeid, _ in jobs}
        if not jobs:
            return results
        workers = max(1, min(self._fanout or len(jobs), len(jobs)))
        if self._control is not None and (reason := self._control.stop.reason()) is not None:
            raise MeasurementMissing(f"{owner}: not measured: the run stopped: {reason}")
        with self._locks.hold(resources, owner=f"{owner} [{self._worker}]"):
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gpufabric-round") as pool:
                futures = [pool.submit(self._measure_job, nodeid, pairs, measure) for nodeid, pairs in jobs]
                for (nodeid, pairs), future in zip(jobs, futures):
                    results[nodeid].update(_outcomes(future, pairs))
        return results

    def _measure_job(self, nodeid: str, pairs: tuple[NicPairTarget, ...], measure: Any, deadline: float | None = None,
                     started: float | None = None) -> list[RailMeasurement[Any]]:
        """A job's NIC pairs, under its item's name (deterministic recordings), in one record of the schedule log
        (none when another run's lease refused it: its NICs were not used); each command within ``deadline``, with
        its node-side guard."""
        resources = job_resources(pairs)
        control = self._control

        def run(node: str, command: str, timeout_s: float | None, cached: bool) -> CommandResult:
            if deadline is not None:
                timeout_s = command_timeout(timeout_s, deadline - time.monotonic())
            guard = control.guard_of(node, resources) if control is not None else None
            return self._run(node, command, timeout_s, cached, nodeid, guard)

        item_run: RunFunc = run

        def measured() -> list[RailMeasurement[Any]]:
            if isinstance(measure, NodePairMeasure):
                return measure_together(pairs, measure, item_run)
            return [measure_one(pair, measure, item_run) for pair in pairs]
        if self._schedule is None:
            return measured()
        started = started or time.time()
        try:
            done = measured()
        except BaseException:
            self._schedule.append(ScheduleRecord(nodeid, resources, started, time.time(), self._worker))
            raise
        if not all(found.error_kind == LeaseBusy.__name__ for found in done):
            self._schedule.append(ScheduleRecord(nodeid, resources, started, time.time(), self._worker))
        return done

    @staticmethod
    def _restore(measured: dict[str, tuple[Any, ...]], rails: Sequence[NicPairTarget]) -> list[RailMeasurement[Any]]:
        return [RailMeasurement(pair, *measured[pair.id]) for pair in rails]
