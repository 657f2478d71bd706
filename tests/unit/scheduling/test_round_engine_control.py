"""The round engine contains failures (``measuring.control``): a NIC that cannot be reached is marked down and its
pending NIC pairs error at once, each NIC-pair test is bounded, a stopped run starts no NIC pair, a NIC pair refused by
another run's node lease is tried again holding no lock, then stops the run naming the holder, and a driver that died
stops the run."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.errors import MeasurementMissing, Unreachable
from pytest_gpufabric.exclusive import ResourceLocks, ScheduleLog, rail_resources, resource_node
from pytest_gpufabric.exclusive.down import DownMarks
from pytest_gpufabric.exclusive.leases import LeaseBusy, NodeGuard
from pytest_gpufabric.exclusive.locks import lock_file_name
from pytest_gpufabric.exclusive.stop import StopFlag
from pytest_gpufabric.inventory import Inventory, Node
from pytest_gpufabric.measuring import engine as engine_module
from pytest_gpufabric.measuring.control import RunControl
from pytest_gpufabric.measuring.engine import RoundEngine
from pytest_gpufabric.measuring.rails import RailMeasurement, RailRunner
from pytest_gpufabric.scheduling.round_plan import plan_rounds
from pytest_gpufabric.targets import NicPairTarget, NodePairTarget, targets_for_scope
from pytest_gpufabric.transport.base import CommandResult

CHECK = "PERF-002"


class Cluster:
    """A run over the demo cluster's node pairs: its control, the commands that reached the nodes, and a
    ``measure`` whose behaviour per NIC pair each test sets."""

    def __init__(self, inventory: Inventory, tmp_path: Path, bound_s: float | None = 10.0) -> None:
        pairs: list[NodePairTarget] = list(targets_for_scope(inventory, "node_pair"))  # type: ignore[arg-type]
        self.plans = plan_rounds([(f"t[{pair.id}]", pair) for pair in pairs], lambda _: CHECK, lambda m: m[0],
                                 lambda m: (m[1].a.name, m[1].b.name), lambda m: m[1])
        self.pairs = {f"t[{pair.id}]": pair for pair in pairs}
        self.control = RunControl(DownMarks(tmp_path / "down"), StopFlag(tmp_path), lambda check: bound_s,
                                  lambda node, resources: NodeGuard("abcdef012345", "run abcdef012345",
                                                                    tuple(r for r in resources if resource_node(r) == node)))
        self.locks = ResourceLocks(tmp_path / "locks", 60)
        self.log = ScheduleLog(tmp_path / "schedule.jsonl")
        self.shared = tmp_path / "rounds"
        self.sent: list[tuple[str, str, float | None, NodeGuard | None]] = []
        self.link_state: dict[tuple[str, str], str] = {}  # (node, netdev) -> operstate (default up)
        self.measured: list[str] = []
        self.behaviour: Any = lambda runner, pair: runner.run(pair.node_a.name, f"perftest {pair.id}").stdout
        self.guard = threading.Lock()

    def run(self, node: str, command: str, timeout_s: float | None, cached: bool, item: str,
            guard: NodeGuard | None) -> CommandResult:
        with self.guard:
            self.sent.append((node, command, timeout_s, guard))
        if command.startswith("cat /sys/class/net/"):
            return CommandResult(node, command, self.link_state.get((node, command.split("/")[4]), "up") + "\n", "", 0, 0.0)
        return CommandResult(node, command, "measured", "", 0, 0.0)

    def fail_pairs_of(self, node: Node, nic_index: int, error: Callable[[str], Exception], link: str = "up") -> str:
        """Every NIC pair with NIC ``nic_index`` of ``node`` raises ``error(its id)``; that NIC's link reads ``link``.
        Returns the NIC's name (``node/nic``)."""
        nic = node.nics[nic_index]
        name = f"{node.name}/{nic.name}"
        self.link_state[(node.name, nic.netdev)] = link

        def behaviour(runner: RailRunner, pair: NicPairTarget) -> str:
            if name in _ends(pair):
                raise error(pair.id)
            return "measured"
        self.behaviour = behaviour
        return name

    def engine(self) -> RoundEngine:
        engine = RoundEngine(self.run, lambda check, target: target.rail_pairs(), self.locks, self.shared, self.log,
                             "gw0", None, control=self.control)
        engine.plan(self.plans)
        return engine

    def measure(self, runner: RailRunner, pair: NicPairTarget) -> str:
        with self.guard:
            self.measured.append(pair.id)
        return str(self.behaviour(runner, pair))

    def sweep(self) -> dict[str, list[RailMeasurement[Any]]]:
        engine = self.engine()
        got = {nodeid: engine.measure(nodeid, pair.rail_pairs(), self.measure) for nodeid, pair in self.pairs.items()}
        engine.close()
        return got


def _ends(pair: NicPairTarget) -> set[str]:
    return {f"{pair.node_a.name}/{pair.nic_a.name}", f"{pair.node_b.name}/{pair.nic_b.name}"}


def _rails(got: dict[str, list[RailMeasurement[Any]]]) -> list[RailMeasurement[Any]]:
    return [rail for rails in got.values() for rail in rails]


MakeCluster = Callable[..., Cluster]


@pytest.fixture
def make_cluster() -> Iterator[MakeCluster]:
    """Clusters whose lock files are given back after the test."""
    made: list[Cluster] = []

    def make(inventory: Inventory, tmp_path: Path, bound_s: float | None = 10.0) -> Cluster:
        made.append(Cluster(inventory, tmp_path, bound_s))
        return made[-1]
    yield make
    for cluster in made:
        cluster.locks.close()


def test_a_nic_whose_link_is_down_is_marked_and_its_pending_pairs_error_at_once(make_cluster: MakeCluster, demo_inventory: Inventory,
                                                                                 tmp_path: Path) -> None:
    cluster = make_cluster(demo_inventory, tmp_path)
    dead = cluster.fail_pairs_of(demo_inventory.nodes[2], 1, lambda pair_id: Unreachable(
        f"{pair_id}: perftest client did not end within its time limit (exit 124)"), link="lowerlayerdown")
    rails = _rails(cluster.sweep())
    with_dead = [rail for rail in rails if dead in _ends(rail.pair)]
    assert len(with_dead) == len(demo_inventory.nodes) - 1
    first = [rail for rail in with_dead if rail.error_kind == "Unreachable"]
    assert len(first) == 1 and any(result.command.endswith("/operstate") for result in first[0].commands)
    refused = [(rail.error_kind, rail.error) for rail in with_dead if rail is not first[0]]
    assert all(kind == "down" and f"{dead} is down for the rest of the run: link lowerlayerdown" in str(error)
               for kind, error in refused), refused
    assert sum(dead in _ends_of(pair_id, rails) for pair_id in cluster.measured) == 1  # measured once, then refused
    assert [(rail.pair.id, rail.error) for rail in rails if dead not in _ends(rail.pair) and rail.error] == []


def test_a_link_that_went_down_in_a_run_is_read_after_any_error_and_marked_at_once(make_cluster: MakeCluster, demo_inventory: Inventory,
                                                                                    tmp_path: Path) -> None:
    cluster = make_cluster(demo_inventory, tmp_path)
    dead = cluster.fail_pairs_of(demo_inventory.nodes[2], 1, lambda pair_id: MeasurementMissing(  # its server stopped unheard
        f"{pair_id}: the server's output is not in its node's command output"), link="down")
    rails = _rails(cluster.sweep())
    with_dead = [rail for rail in rails if dead in _ends(rail.pair)]
    first = [rail for rail in with_dead if rail.error_kind == "MeasurementMissing"]
    assert len(first) == 1 and any(result.command.endswith("/operstate") for result in first[0].commands)
    assert all(rail.error_kind == "down" and "link down (" in str(rail.error) for rail in with_dead if rail is not first[0])


def test_errors_other_than_no_traffic_do_not_mark_a_nic_whose_link_is_up(make_cluster: MakeCluster, demo_inventory: Inventory, tmp_path: Path) -> None:
    cluster = make_cluster(demo_inventory, tmp_path)
    busy = cluster.fail_pairs_of(demo_inventory.nodes[0], 0, lambda pair_id: MeasurementMissing(
        f"{pair_id}: perftest server could not listen (port in use)"))
    every = _rails(cluster.sweep())
    rails = [rail for rail in every if busy in _ends(rail.pair)]
    assert len(rails) > 2 and all(rail.error_kind == "MeasurementMissing" for rail in rails)  # each tried, none refused
    assert all(any(result.command.endswith("/operstate") for result in rail.commands) for rail in rails)
    assert cluster.control.marks.cause(busy) is None
    measured = [rail for rail in every if rail.error_kind is None]
    assert measured and not any(result.command.endswith("/operstate") for rail in measured for result in rail.commands)


def _ends_of(pair_id: str, rails: Sequence[RailMeasurement[Any]]) -> set[str]:
    return next(_ends(rail.pair) for rail in rails if rail.pair.id == pair_id)


def test_a_nic_that_fails_two_pairs_in_a_row_is_marked_down_even_with_its_link_up(make_cluster: MakeCluster, demo_inventory: Inventory,
                                                                                 tmp_path: Path) -> None:
    cluster = make_cluster(demo_inventory, tmp_path)
    dead = cluster.fail_pairs_of(demo_inventory.nodes[0], 0, lambda pair_id: Unreachable(
        f"{pair_id}: perftest client could not run (connection)"))
    rails = [rail for rail in _rails(cluster.sweep()) if dead in _ends(rail.pair)]
    assert [rail.error_kind for rail in rails].count("Unreachable") == 2
    assert cluster.control.marks.cause(dead) is not None and "2 NIC pairs in a row" in str(cluster.control.marks.cause(dead))
    others = {end for rail in rails for end in _ends(rail.pair)} - {dead}
    assert not any(cluster.control.marks.cause(name) for name in others)  # each partner failed once, then passed


def test_each_command_gets_what_is_left_of_the_bound_and_runs_with_its_nodes_guard(make_cluster: MakeCluster, demo_inventory: Inventory,
                                                                                  tmp_path: Path) -> None:
    cluster = make_cluster(demo_inventory, tmp_path, bound_s=8.0)
    cluster.behaviour = lambda runner, pair: runner.run(pair.node_b.name, "perftest", timeout_s=300).stdout
    cluster.sweep()
    assert cluster.sent and all(timeout is not None and 2.0 <= timeout <= 8.0 for _, _, timeout, _ in cluster.sent)
    for node, _, _, guard in cluster.sent:
        assert guard is not None and guard.resources and all(f":{node}/" in name for name in guard.resources)


def test_a_pair_that_outlives_its_bound_is_left_behind_as_an_error(make_cluster: MakeCluster, demo_inventory: Inventory, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_module, "WATCHDOG_SLACK_S", 0.2)
    cluster = make_cluster(demo_inventory, tmp_path, bound_s=0.3)
    release = threading.Event()
    slow = next(iter(cluster.pairs.values())).rail_pairs()[0].id
    cluster.behaviour = lambda runner, pair: release.wait(30) if pair.id == slow else "measured"
    started = time.monotonic()
    rails = _rails(cluster.sweep())
    release.set()
    (hung,) = [rail for rail in rails if rail.pair.id == slow]
    assert hung.error_kind == "Unreachable" and "did not end within 0.5 s" in str(hung.error)
    assert time.monotonic() - started < 20


def test_a_stopped_run_starts_no_pair(make_cluster: MakeCluster, demo_inventory: Inventory, tmp_path: Path) -> None:
    cluster = make_cluster(demo_inventory, tmp_path)

    stopped_at: list[float] = []

    def behaviour(runner: RailRunner, pair: NicPairTarget) -> str:
        if len(cluster.measured) == 5:
            cluster.control.stop.set("SIGTERM to pid 1")
            stopped_at.append(time.time())
        return "measured"
    cluster.behaviour = behaviour
    rails = _rails(cluster.sweep())
    spans = cluster.log.read()
    assert stopped_at and not [span for span in spans if span.start > stopped_at[0]]
    assert len(spans) == len(cluster.measured) < len(rails)
    refused = [rail for rail in rails if rail.error is not None]
    assert refused and all("the run stopped: SIGTERM to pid 1" in str(rail.error) for rail in refused)


def test_a_pair_refused_by_another_runs_lease_waits_holding_no_lock_then_the_run_stops_naming_it(
        make_cluster: MakeCluster, demo_inventory: Inventory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_module, "LEASE_PAUSE_S", 0.05)
    monkeypatch.setattr(engine_module, "KILL_GRACE_S", 0.2)
    cluster = make_cluster(demo_inventory, tmp_path, bound_s=0.1)
    node = demo_inventory.nodes[0]
    leased = f"{node.name}/{node.nics[0].name}"
    line = f"gpufabric-lease: nic:{leased} on {node.name} is in use by run 0123456789ab (controller other pid 7)"
    free_meanwhile: list[bool] = []

    def behaviour(runner: RailRunner, pair: NicPairTarget) -> str:
        if leased in _ends(pair):
            threading.Thread(target=lambda: free_meanwhile.append(_free(cluster.locks, pair))).start()
            raise LeaseBusy(node.name, line)
        return "measured"
    cluster.behaviour = behaviour
    rails = _rails(cluster.sweep())
    assert cluster.control.stop.reason() == f"the cluster is busy: {node.name}: {line}"
    assert free_meanwhile and any(free_meanwhile)  # its locks were free while it waited
    assert not [span for span in cluster.log.read() if f"nic:{leased}" in span.resources]  # refused: never logged as a use
    assert any(rail.error is None for rail in rails)


def _free(locks: ResourceLocks, pair: NicPairTarget) -> bool:
    time.sleep(0.02)  # into the pause after the refusal
    try:
        with ResourceLocks(locks.lock_dir, 0.01).hold(rail_resources(pair)):
            return True
    except Exception:
        return False


def test_a_driver_that_died_stops_the_run_instead_of_being_replaced(make_cluster: MakeCluster, demo_inventory: Inventory, tmp_path: Path) -> None:
    cluster = make_cluster(demo_inventory, tmp_path)
    cluster.shared.mkdir(parents=True)
    (cluster.shared / f"{lock_file_name(CHECK)}.driver").write_text("pid 4242 gw1\n")  # left by a killed driver
    rails = _rails(cluster.sweep())
    assert cluster.control.stop.reason() == f"the process driving {CHECK} died (pid 4242 gw1)"
    assert cluster.measured == [] and all(rail.error is not None for rail in rails)
