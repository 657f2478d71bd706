"""The round engine: one driver measures a check's rounds in order, rounds overlap without a barrier, and no
NIC, GPU or port is ever used by two measurements at once (the schedule log)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.exclusive import (
    ResourceLocks,
    ScheduleLog,
    find_overlaps,
    port_for,
)
from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.measuring import engine as engine_module
from pytest_gpufabric.measuring.engine import RoundEngine
from pytest_gpufabric.measuring.rails import RailRunner
from pytest_gpufabric.scheduling.round_plan import plan_rounds
from pytest_gpufabric.targets import NicPairTarget, NodePairTarget, targets_for_scope
from pytest_gpufabric.transport.base import CommandResult

CHECK = "PERF-002"


class Rig:
    """Engines of one run (as its xdist workers would hold them), over the demo cluster's node pairs."""

    def __init__(self, inventory: Inventory, tmp_path: Path) -> None:
        self.pairs: list[NodePairTarget] = list(targets_for_scope(inventory, "node_pair"))  # type: ignore[arg-type]
        self.plans = plan_rounds([(f"t[{pair.id}]", pair) for pair in self.pairs], lambda _: CHECK, lambda m: m[0],
                                 lambda m: (m[1].a.name, m[1].b.name), lambda m: m[1])
        self.tmp_path = tmp_path
        self.log = ScheduleLog(tmp_path / "schedule.jsonl")
        self.measured: Counter[str] = Counter()
        self.counting = threading.Lock()
        self.locks: list[ResourceLocks] = []  # each engine's own, as each process has its own

    def engine(self, worker: str, shares: int = 1, own_share: int = 0) -> RoundEngine:
        self.locks.append(ResourceLocks(self.tmp_path / "locks", 60))
        engine = RoundEngine(lambda node, command, timeout_s, cached, item, guard: CommandResult(node, command, item, "", 0, 0.0),
                             lambda check, target: target.rail_pairs(), self.locks[-1],
                             self.tmp_path / "rounds", self.log, worker, None, shares, own_share)
        engine.plan(self.plans)
        return engine

    def close(self) -> None:
        for locks in self.locks:
            locks.close()

    def measure(self, runner: RailRunner, pair: NicPairTarget) -> str:
        """A rail's time grows with its number: rail 0 of a round ends long before rail 7."""
        time.sleep(0.005 + 0.02 * pair.nic_a.rail)
        with self.counting:
            self.measured[pair.id] += 1
        return runner.run(pair.node_a.name, f"probe {pair.id}").stdout  # the item the command ran under


@pytest.fixture
def rig(demo_inventory: Inventory, tmp_path: Path) -> Iterator[Rig]:
    made = Rig(demo_inventory, tmp_path)
    yield made
    made.close()


def _take(engine: RoundEngine, rig: Rig, items: list[str], into: dict[str, Any]) -> None:
    for nodeid in items:
        pair = next(pair for pair in rig.pairs if nodeid == f"t[{pair.id}]")
        into[nodeid] = engine.measure(nodeid, pair.rail_pairs(), rig.measure)


def test_one_process_measures_every_rail_once_rounds_overlap_and_nothing_is_shared(rig: Rig,
                                                                                   tmp_path: Path) -> None:
    engine = rig.engine("main")
    got: dict[str, Any] = {}
    _take(engine, rig, [member.nodeid for plan in rig.plans for member in plan.members], got)
    engine.close()
    assert len(rig.plans) > 1 and len(got) == 15  # 6 nodes: 15 node pairs, in rounds of disjoint pairs
    for nodeid, rails in got.items():
        assert [(rail.value, rail.error) for rail in rails] == [(nodeid, None)] * 8  # each command under its own item
    assert set(rig.measured.values()) == {1} and len(rig.measured) == 15 * 8
    spans = rig.log.read()
    assert len(spans) == 120 and find_overlaps(spans) == []
    round_of = {member.nodeid: plan.number for plan in rig.plans for member in plan.members}
    rail0 = f"/{port_for(0)}"  # the perftest port of rail 0, on each node of the pair
    first_rail0_of_round2 = min(s.start for s in spans if round_of[s.item] == 2 and any(r.endswith(rail0) for r in s.resources))
    last_of_round1 = max(s.end for s in spans if round_of[s.item] == 1)
    assert first_rail0_of_round2 < last_of_round1  # no barrier: rail 0 goes on while rail 7 of round 1 runs
    assert not list((tmp_path / "rounds").glob("*.pickle"))  # one process: the rounds stay in memory


def test_one_process_ahead_of_its_items_keeps_a_few_rounds_in_memory_and_stores_the_rest(rig: Rig,
                                                                                       tmp_path: Path) -> None:
    """A driver that measures faster than its items are judged (a replay) keeps at most KEPT_ROUNDS rounds in
    memory; the rounds after them are stored, and every item still gets its own measurements."""
    engine = rig.engine("main")
    items = [member.nodeid for plan in rig.plans for member in plan.members]
    got: dict[str, Any] = {}
    _take(engine, rig, items[:1], got)  # the driver starts, and goes on through every round
    stored_at_least = len(rig.plans) - 1 - engine_module.KEPT_ROUNDS  # the first round went to its item
    deadline = time.monotonic() + 60
    while len(list((tmp_path / "rounds").glob("*.pickle"))) < stored_at_least and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored_at_least > 0 and len(list((tmp_path / "rounds").glob("*.pickle"))) >= stored_at_least
    _take(engine, rig, items[1:], got)
    engine.close()
    assert all([rail.value for rail in got[nodeid]] == [nodeid] * 8 for nodeid in items) and len(got) == 15
    assert set(rig.measured.values()) == {1}


def test_one_process_measures_an_item_that_asks_again_on_its_own(rig: Rig, tmp_path: Path) -> None:
    """A round kept in memory is handed out once: an item asking again is measured again, its own NIC pairs only."""
    engine = rig.engine("main")
    first = rig.plans[0].members[0].nodeid
    got: dict[str, Any] = {}
    _take(engine, rig, [first], got)
    again: dict[str, Any] = {}
    _take(engine, rig, [first], again)
    engine.close()
    assert [rail.value for rail in again[first]] == [first] * 8
    pair = next(pair for pair in rig.pairs if first == f"t[{pair.id}]")
    own = {rail.id for rail in pair.rail_pairs()}
    assert {key: count for key, count in rig.measured.items() if key in own} == dict.fromkeys(own, 2)
    assert {count for key, count in rig.measured.items() if key not in own} == {1}  # the rounds once, the item twice


def test_one_driver_for_two_workers_whichever_round_they_ask_first(rig: Rig, tmp_path: Path) -> None:
    # Worker B asks for the last round first (xdist hands out chunks): it drives from round 1, and A reads.
    items = [member.nodeid for plan in rig.plans for member in plan.members]
    halves = {"gw0": items[: len(items) // 2], "gw1": items[len(items) // 2:][::-1]}
    got = _take_in_threads({worker: rig.engine(worker, 2, index) for index, worker in enumerate(halves)}, rig, halves)
    assert len(got) == 15 and all(rail.value == nodeid for nodeid, rails in got.items() for rail in rails)
    assert set(rig.measured.values()) == {1} and len(rig.measured) == 120  # each NIC pair measured once in the run
    spans = rig.log.read()
    assert len({span.worker for span in spans}) == 1 and find_overlaps(spans) == []


def _take_in_threads(engines: dict[str, RoundEngine], rig: Rig, asks: dict[str, list[str]]) -> dict[str, Any]:
    """Each worker's engine takes its items in a thread of its own, as xdist workers do; what they got."""
    got: dict[str, Any] = {}
    threads = [threading.Thread(target=_take, args=(engines[worker], rig, asks[worker], got)) for worker in asks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for engine in engines.values():
        engine.close()
    return got


def test_large_rounds_are_shared_by_the_processes_small_ones_stay_whole() -> None:
    """Every worker drives its part of a round from SPLIT_FROM_NODE_PAIRS node pairs on; the parts are disjoint
    and together the round; a small round (the lab's 8 node pairs) stays with one driver."""
    from pytest_gpufabric.measuring.engine import (
        SPLIT_FROM_NODE_PAIRS,
        RoundMember,
        RoundPlan,
    )

    members = tuple(RoundMember(f"t[{index}]", None) for index in range(SPLIT_FROM_NODE_PAIRS + 1))  # type: ignore[arg-type]
    parts = RoundPlan("PERF-002", 1, 3, members).split(2)
    assert [part.key for part in parts] == ["PERF-002-round00001-share0", "PERF-002-round00001-share1"]
    assert [part.lane for part in parts] == ["PERF-002#0", "PERF-002#1"]
    assert sorted(member.nodeid for part in parts for member in part.members) == sorted(m.nodeid for m in members)
    small = RoundPlan("PERF-002", 1, 3, members[:8])
    assert small.split(2) == [small] and small.lane == "PERF-002" and small.key == "PERF-002-round00001"


def test_each_worker_drives_its_own_part_of_every_round(rig: Rig, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers, rounds split in 2: worker N measures part N of every round, even when its items are all of the
    other part and it asks first (the first to ask took every part before)."""
    monkeypatch.setattr(engine_module, "SPLIT_FROM_NODE_PAIRS", 2)  # the demo's rounds of 3 node pairs split
    parts = {member.nodeid: part.share for plan in rig.plans for part in plan.split(2) for member in part.members}
    assert set(parts.values()) == {0, 1}
    asks = {"gw0": [item for item, share in parts.items() if share == 1], "gw1": [item for item, share in parts.items() if share == 0]}
    got = _take_in_threads({worker: rig.engine(worker, 2, index) for index, worker in enumerate(asks)}, rig, asks)
    assert len(got) == 15 and all(rail.value == nodeid for nodeid, rails in got.items() for rail in rails)
    assert set(rig.measured.values()) == {1} and len(rig.measured) == 120
    spans = rig.log.read()
    split = {member.nodeid for plan in rig.plans if len(plan.split(2)) == 2 for member in plan.members}
    assert len(split) >= 10  # a round of one node pair stays whole, with whoever asks first
    assert {span.item: span.worker for span in spans if span.item in split} == {item: f"gw{parts[item]}" for item in split}
    assert find_overlaps(spans) == []


def test_a_part_nobody_drives_is_taken_over(rig: Rig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker 1 never asks (it got none of the check's items): worker 0 drives part 1 too, after TAKEOVER_S."""
    monkeypatch.setattr(engine_module, "SPLIT_FROM_NODE_PAIRS", 2)
    monkeypatch.setattr(engine_module, "TAKEOVER_S", 0.2)
    engine = rig.engine("gw0", 2, 0)
    got: dict[str, Any] = {}
    _take(engine, rig, [member.nodeid for plan in rig.plans for member in plan.members], got)
    engine.close()
    assert len(got) == 15 and set(rig.measured.values()) == {1} and len(rig.measured) == 120
    assert {span.worker for span in rig.log.read()} == {"gw0"}
