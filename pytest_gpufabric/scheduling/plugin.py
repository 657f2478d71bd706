"""pytest hooks for exclusive resources: pair selection, round ordering, resource locks, schedule log,
rounds, failure containment, stops and fault-localization summaries. Registered by the main plugin when a cluster
is given.

Under pytest-xdist every worker collects, filters and orders the same way (all deterministic); the
controller chooses the lock directory (by default the site's, shared by every run against it on this machine)
and hands it, with its own host and PID, to the workers, and it alone prints the summaries.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.checks.localization import (
    PairOutcome,
    localize,
    record_pair_outcomes,
    summary_lines,
)
from pytest_gpufabric.errors import MeasurementMissing, UsageError
from pytest_gpufabric.exclusive.down import DownMarks, NodeHealth
from pytest_gpufabric.exclusive.leases import NodeGuard, holder_line
from pytest_gpufabric.exclusive.lock_dir import default_lock_dir, prepare_lock_dir, run_dir
from pytest_gpufabric.exclusive.locks import ResourceLocks
from pytest_gpufabric.exclusive.names import is_exclusive, resource_node, resources_of
from pytest_gpufabric.exclusive.schedule_log import ScheduleLog
from pytest_gpufabric.exclusive.stop import StopFlag
from pytest_gpufabric.items import CheckTest, CheckTests
from pytest_gpufabric.measuring.control import RunControl, traffic_bound
from pytest_gpufabric.results import PROPERTY_KEY
from pytest_gpufabric.scheduling.ordering import order_items_in_rounds, ordering_keys
from pytest_gpufabric.scheduling.pair_option import rounds_summary
from pytest_gpufabric.scheduling.estimate import CheckSweep, estimate_lines, mesh_estimate_lines, planned_sweeps
from pytest_gpufabric.scheduling.progress import RoundProgress
from pytest_gpufabric.scheduling.round_plan import plan_rounds
from pytest_gpufabric.scheduling.stopping import StopWatch, stop_on_signals
from pytest_gpufabric.measuring.engine import RoundEngine
from pytest_gpufabric.measuring.mesh import MeshEngine, mesh_plan
from pytest_gpufabric.checks.connectivity import mesh_spec
from pytest_gpufabric.targets import NicPairTarget, NodePairTarget

LOCK_DIR_INPUT = "gpufabric_lock_dir"
CONTROLLER_INPUT = "gpufabric_controller"  # (host, pid) of the controller, for the holder lines of leases and locks
ROUND_KEY = "gpufabric_round"
DEFAULT_LOCK_TIMEOUT_S = 3600.0
DURATION = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h)?$")


def parse_duration(text: str) -> float:
    """``8h``, ``30m``, ``90s`` or ``90`` (seconds) -> seconds."""
    match = DURATION.match(text.strip())
    if match is None or float(match.group(1)) <= 0:
        raise UsageError(f"--soak {text!r}: expected a positive duration such as 8h, 30m or 90s")
    return float(match.group(1)) * {"s": 1, "m": 60, "h": 3600, None: 1}[match.group(2)]


class SchedulingPlugin:
    """Selects, orders and serializes the traffic-generating items of one pytest process."""

    def __init__(self, config: pytest.Config, session: Any, run_id: str, tests: CheckTests) -> None:
        self.config = config
        self.fabric = session
        self.tests = tests
        self.run_id = run_id
        self.policy = session.pair_policy
        self.is_worker = hasattr(config, "workerinput")
        self.worker = str(config.workerinput["workerid"]) if self.is_worker else "main"  # type: ignore[attr-defined]
        self.lock_dir = self._lock_dir()
        self.run_dir = run_dir(self.lock_dir, run_id)
        self.controller = self._controller()
        holder = holder_line(run_id, *self.controller)
        self.locks = ResourceLocks(self.lock_dir, float(config.getoption("lock_timeout")), identity=holder)
        log_path = config.getoption("schedule_log")
        self.schedule = ScheduleLog(log_path, session.scrubber) if log_path else None
        if self.schedule is not None and not self.is_worker and self.schedule.path.exists():
            self.schedule.path.unlink()  # a fresh log per run; workers only append
        self.outcomes: list[PairOutcome] = []
        self.stop = StopFlag(self.run_dir)
        self.marks = DownMarks(self.run_dir / "down")
        factor, floor = float(config.getoption("bound_factor")), float(config.getoption("bound_floor"))

        def guard_of(node: str, resources: Sequence[str]) -> NodeGuard:
            return NodeGuard(run_id, holder, tuple(name for name in resources if resource_node(name) == node))

        def bound_of(check_id: str) -> float | None:
            expected = session.profile.test_times.get(check_id)
            return traffic_bound(expected.seconds if expected else None, factor, floor)
        session.health = NodeHealth(self.marks)
        session.guard_of = guard_of
        self.engine = RoundEngine(
            lambda node, command, timeout_s, cached, item, guard: session.run(node, command, timeout_s, cached, item, guard),
            self._rails, self.locks, self.run_dir / "rounds", self.schedule, self.worker, session.fanout,
            shares=int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) if self.is_worker else 1,
            own_share=worker_index(self.worker),
            control=RunControl(self.marks, self.stop, bound_of, guard_of))
        session.round_engine = self.engine
        self.mesh = MeshEngine(  # a node's mesh command is guarded too (its PID file: stopped with the run's traffic)
            lambda node, command, timeout_s, item: session.run(node, command, timeout_s, False, item, guard_of(node, ())),
            self.run_dir / "rounds", self.stop.reason)
        session.mesh_engine = self.mesh
        self.progress = RoundProgress(self._progress_line)
        self._terminal: Any = None
        self._sweeps_file = self.run_dir / "sweeps.json"  # the workers' plan, for the controller
        self._estimated = False
        self._stopped_traffic = False
        self._restore_signals = stop_on_signals(self.stop)
        self._watch = StopWatch(self.stop, self._stop_traffic, os.getppid() if self.is_worker else None)
        self._watch.start()

    def _lock_dir(self) -> Path:
        if self.is_worker:
            return Path(self.config.workerinput[LOCK_DIR_INPUT])  # type: ignore[attr-defined]
        chosen = self.config.getoption("lock_dir")
        return prepare_lock_dir(Path(chosen) if chosen else default_lock_dir(self.fabric.inventory))

    def _controller(self) -> tuple[str, int]:
        """The controller's host and PID (this process, unless it is a worker)."""
        if self.is_worker:
            host, pid = self.config.workerinput[CONTROLLER_INPUT]  # type: ignore[attr-defined]
            return str(host), int(pid)
        return socket.gethostname(), os.getpid()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[LOCK_DIR_INPUT] = str(self.lock_dir)
        node.workerinput[CONTROLLER_INPUT] = list(self.controller)

    def _stop_traffic(self, reason: str) -> None:
        """The run stopped: start no traffic test in this process, stop its traffic commands on their nodes."""
        self.engine.halt()
        if not self._stopped_traffic:
            self._stopped_traffic = True
            self.fabric.stop_traffic(self.run_id)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker that died stops the run (its traffic may still be running on the nodes)."""
        if error is not None:
            workerid = getattr(node, "workerinput", {}).get("workerid", "a worker")
            self.stop.set(f"worker {workerid} died: {str(error).strip().splitlines()[0] if str(error).strip() else 'crashed'}")

    def pytest_keyboard_interrupt(self) -> None:
        self.stop.set(f"interrupted (pid {os.getpid()})")

    def _resources(self, item: pytest.Item) -> tuple[str, ...]:
        test = self.tests.of(item)
        return resources_of(test.check_id, test.target(item)) if test.check_id else ()

    def _rail_item(self, item: pytest.Item) -> bool:
        """A node-pair item of a check judged per NIC pair: the round engine measures it, holding the locks."""
        test = self.tests.of(item)
        return self._rail_check(test.check_id) and isinstance(test.target(item), NodePairTarget)

    def _rail_check(self, check_id: str | None) -> bool:
        """A check judged per NIC pair (its node-pair items are measured by the round engine)."""
        if check_id is None or check_id not in self.fabric.catalog:
            return False
        spec = self.fabric.catalog.get(check_id)
        return spec.scope == "nic_pair" and spec.measured != "mesh"

    def _mesh_check(self, check_id: str | None) -> bool:
        """A check measured as a mesh (``measuring.mesh``): no per-item locks, no rounds, before the traffic."""
        return check_id is not None and check_id in self.fabric.catalog and self.fabric.catalog.get(check_id).measured == "mesh"

    def _rails(self, check_id: str, target: NodePairTarget) -> tuple[NicPairTarget, ...]:
        """The NIC pairs a node-pair item measures: every rail, or the failed ones of a rerun."""
        rerun = self.fabric.rerun
        return tuple(pair for pair in target.rail_pairs() if rerun is None or rerun.keeps(check_id, pair.id))

    @pytest.hookimpl(tryfirst=True)  # before a worker reports its collection: the estimate is written by then
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The rounds of the final items (after -k, --lf and every other selection), and the sweep estimate."""
        members: list[tuple[str, str, NodePairTarget]] = []  # (node id, check id, node pair) of each rail item
        meshes: dict[str, dict[str, tuple[str, str]]] = {}  # mesh check -> its items' node pairs
        kinds: dict[CheckTest, str] = {}
        for item in session.items:
            test = self.tests.of(item)
            kind = kinds.get(test)
            if kind is None:
                kind = kinds[test] = ("mesh" if self._mesh_check(test.check_id)
                                      else "rails" if self._rail_check(test.check_id) else "")
            target = test.target(item) if kind else None
            if not isinstance(target, NodePairTarget) or test.skipped(item):
                continue
            if kind == "mesh":
                meshes.setdefault(str(test.check_id), {})[item.nodeid] = (target.a.name, target.b.name)
            else:
                members.append((item.nodeid, str(test.check_id), target))
        plans = plan_rounds(members, lambda member: member[1], lambda member: member[0],
                            lambda member: (member[2].a.name, member[2].b.name), lambda member: member[2])
        self.engine.plan(plans)
        mesh_plans = [mesh_plan(check_id, self.fabric.inventory.nodes, self.fabric.node_pairs, items, self.fabric.fanout,
                                both_ways=mesh_spec(check_id).both_ways) for check_id, items in meshes.items()]
        self.mesh.plan(mesh_plans, {plan.check_id: mesh_spec(plan.check_id) for plan in mesh_plans})
        sweeps = planned_sweeps(plans)
        mesh_lines = [line for plan in mesh_plans for line in mesh_estimate_lines(plan, mesh_spec(plan.check_id))]
        if not hasattr(self.config, "workerinput"):
            self._print_estimate(sweeps, mesh_lines)
            return
        self._sweeps_file.parent.mkdir(parents=True, exist_ok=True)
        partial = self._sweeps_file.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps({"sweeps": [sweep.as_dict() for sweep in sweeps], "meshes": mesh_lines}),
                           encoding="utf-8")
        os.replace(partial, self._sweeps_file)  # every worker plans the same rounds

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """The controller never collects: it prints the estimate its first worker wrote."""
        if not self._estimated and self._sweeps_file.is_file():
            planned = json.loads(self._sweeps_file.read_text(encoding="utf-8"))
            self._print_estimate([CheckSweep(**raw) for raw in planned["sweeps"]], planned["meshes"])

    def _print_estimate(self, sweeps: list[CheckSweep], mesh_lines: list[str]) -> None:
        self._estimated = True
        for line in [*mesh_lines, *estimate_lines(sweeps, self.fabric.profile, self.policy.describe(), self.fabric.fanout)]:
            self._progress_line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Shared (read-only) items first, then the traffic items in rounds (pairs are collected in round order)."""
        exclusive = []
        exclusive_tests: dict[CheckTest, bool] = {}
        kept = 0  # the shared items moved up in place: no second list of every item (5.6 M at 20,000 nodes)
        for item in items:
            test = self.tests.of(item)
            is_traffic = exclusive_tests.get(test)
            if is_traffic is None:  # mesh checks hold no NIC: they run first, before the traffic
                is_traffic = exclusive_tests[test] = (test.check_id is not None and is_exclusive(test.check_id)
                                                      and not self._mesh_check(test.check_id))
            target = test.target(item) if is_traffic else None
            if target is not None:
                exclusive.append((item, ordering_keys(target)))
            else:
                items[kept] = item
                kept += 1
        del items[kept:]
        items.extend(item for item, _ in order_items_in_rounds(exclusive, lambda entry: entry[1]))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        resources = self._resources(item)
        if not resources or self._rail_item(item) or self._mesh_check(self.tests.of(item).check_id):
            # rail items: the round engine holds the locks; mesh items probe with ICMP and ssh, no NIC of their own
            return (yield)
        with self.locks.hold(resources, owner=f"{item.nodeid} [{self.worker}]"):
            reason = self.stop.reason()
            if reason is not None:
                raise MeasurementMissing(f"{item.nodeid}: not run: the run stopped: {reason}")
            self.fabric.held[item.nodeid] = resources  # its commands lease them on their nodes
            try:
                if self.schedule is None:
                    return (yield)
                with self.schedule.span(item.nodeid, resources, self.worker):
                    return (yield)
            finally:
                del self.fabric.held[item.nodeid]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """The item's round (for the progress lines of the controller), as plain data."""
        report = yield
        plan = self.engine.plan_of(item.nodeid) if report.when == "call" else None
        if plan is not None:
            report.user_properties.append((ROUND_KEY, {
                "check": plan.check_id, "number": plan.number, "total": plan.total, "members": len(plan.members),
                "started": self.engine.started(plan)}))
        check_id = self.tests.of(item).check_id
        mesh = self.mesh.plan_of(check_id) if report.when == "call" and check_id else None
        if mesh is not None and item.nodeid in mesh.items:
            wave = mesh.item_wave(item.nodeid)
            report.user_properties.append((ROUND_KEY, {
                "check": mesh.check_id, "number": wave, "total": len(mesh.waves), "members": mesh.members(wave),
                "started": self.mesh.started(mesh.check_id), "kind": "mesh",
                "probed_s": self.mesh.probed_s(mesh.check_id, wave)}))
        return report

    def _progress_line(self, line: str) -> None:
        """A line of its own, also after pytest's progress dots."""
        if self._terminal is None:
            self._terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if self._terminal is not None:
            writer = self._terminal._tw
            if writer.width_of_current_line:
                writer.line()
            self._terminal.write_line(line)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" or report.skipped:
            return
        data = next((value for key, value in report.user_properties if key == PROPERTY_KEY), None)
        if not isinstance(data, dict) or not data.get("target"):
            return
        round_info = next((value for key, value in report.user_properties if key == ROUND_KEY), None)
        if isinstance(round_info, dict) and not hasattr(self.config, "workerinput"):
            pairs = data.get("pairs") or ()
            if round_info.get("kind") == "mesh":
                self.progress.add(round_info, 1, int(report.outcome != "passed"))
            else:
                self.progress.add(round_info, len(pairs), sum(pair["outcome"] != "passed" for pair in pairs))
        outcome = "failed" if report.failed and not data.get("error_kind") else "other"
        self.outcomes.extend(record_pair_outcomes({"check_id": data["check_id"], "item": data["target"],
                                                   "outcome": outcome, "pairs": data.get("pairs")}))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):
            return
        terminalreporter.write_sep("-", "gpufabric pair schedule")
        if not self.fabric.pair_checks:  # the pairs are never listed: at 20,000 nodes ``all`` is 200 million
            terminalreporter.write_line(f"pair policy {self.policy.describe()}: no node-pair check in the paths collected")
        else:
            pairs = self.fabric.node_pairs
            used, bound = rounds_summary(pairs, len(self.fabric.inventory.nodes))
            terminalreporter.write_line(f"pair policy {self.policy.describe()}: {len(pairs)} node pairs in {used} "
                                        f"rounds of disjoint pairs (lower bound for all pairs: {bound})")
        if self.schedule is not None:
            terminalreporter.write_line(f"schedule log: {self.schedule.path}")
        for name, mark in sorted(self.marks.all().items()):
            terminalreporter.write_line(f"marked down at {clock_time(mark.at)} for the rest of the run: {name}: {mark.cause}")
        reason, since = self.stop.reason(), self.stop.since()
        if reason is not None:
            terminalreporter.write_line(f"traffic stopped at {clock_time(since)}: {reason}" if since is not None
                                        else f"traffic stopped: {reason}")
        if not self.outcomes:
            return
        lines = summary_lines(localize(self.outcomes))
        terminalreporter.write_sep("-", "gpufabric fault localization")
        for line in lines or ["no pair failures to localize"]:
            terminalreporter.write_line(line)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        self.engine.close(interrupted=interrupted)
        if interrupted or self.stop.reason() is not None:
            self._stop_traffic(self.stop.reason() or "interrupted")
        self.mesh.close()  # a wave still running ends by its bound, or by the stop above
        self._stop_watching()  # no traffic is left to stop: a signal now only ends the process

    def _stop_watching(self) -> None:
        self._watch.close()
        self._restore_signals()

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self._stop_watching()
        self.locks.close()
        if not self.is_worker:
            shutil.rmtree(self.run_dir, ignore_errors=True)




def clock_time(at: float) -> str:
    """``at`` (seconds since the epoch) as the local time of day to the millisecond: ``14:03:07.412``."""
    return time.strftime("%H:%M:%S", time.localtime(at)) + f".{int(at * 1000) % 1000:03d}"


def worker_index(worker: str) -> int:
    """N of the xdist worker ``gwN`` (the part of each round it drives); 0 for the run's only process."""
    number = worker.removeprefix("gw")
    return int(number) if worker.startswith("gw") and number.isdigit() else 0


def register(config: pytest.Config, session: Any, run_id: str, tests: CheckTests) -> None:
    """Register the scheduling hooks (called by the main plugin's pytest_configure)."""
    try:
        plugin = SchedulingPlugin(config, session, run_id, tests)
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(plugin, "gpufabric-scheduling")
