"""Resource locks with real contending processes; the schedule log proves that no resource was shared."""

from __future__ import annotations

import multiprocessing
import os
import random
import threading
from collections import Counter
import time
from pathlib import Path

import pytest

from pytest_gpufabric.exclusive import ResourceLocks, ResourceLockTimeout, ScheduleLog, find_overlaps, lock_file_name
from pytest_gpufabric.exclusive.locks import SHARDS
from pytest_gpufabric.scheduling import rail_rounds
from tests.unit.scheduling.helpers import node_names

FORK = multiprocessing.get_context("fork")


def run_items(lock_dir: str, log_path: str, worker: str, items: list[tuple[str, list[str]]], hold_s: float) -> None:
    """A worker process: for each item, take its resources' locks, use them for a while, log the use."""
    locks = ResourceLocks(lock_dir, timeout_s=30)
    log = ScheduleLog(log_path)
    for item, resources in items:
        with locks.hold(resources, owner=item), log.span(item, resources, worker):
            time.sleep(hold_s)


def run_unlocked(log_path: str, worker: str, resources: list[str], barrier: object, hold_s: float) -> None:
    """A worker process that uses its resources without locks, all workers starting together."""
    barrier.wait()  # type: ignore[attr-defined]
    with ScheduleLog(log_path).span(f"unlocked-{worker}", resources, worker):
        time.sleep(hold_s)


def hold_then_wait(lock_dir: str, resources: list[str], owner: str, held: object, release: object) -> None:
    """Hold ``resources`` until told to release them."""
    with ResourceLocks(lock_dir, timeout_s=10).hold(resources, owner=owner):
        held.set()  # type: ignore[attr-defined]
        release.wait(10)  # type: ignore[attr-defined]


def start(target: object, *args: object) -> multiprocessing.process.BaseProcess:
    process = FORK.Process(target=target, args=args)
    process.start()
    return process


def join_all(processes: list[multiprocessing.process.BaseProcess], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    for process in processes:
        process.join(max(0.1, deadline - time.monotonic()))
    alive = [p.pid for p in processes if p.is_alive()]
    for process in processes:
        if process.is_alive():
            process.terminate()
            process.join(5)
    assert not alive, f"worker processes {alive} did not finish (deadlock?)"
    assert [p.exitcode for p in processes] == [0] * len(processes)


def nic_items(nodes: int, rails: int) -> list[tuple[str, list[str]]]:
    items = []
    for round_pairs in rail_rounds(node_names(nodes), [f"rail{r}" for r in range(rails)]):
        for (a, rail), (b, _) in round_pairs:
            items.append((f"{a}/{rail}->{b}/{rail}", [f"{a}/{rail}", f"{b}/{rail}"]))
    return items


def test_contending_processes_never_share_a_resource(tmp_path: Path) -> None:
    items = nic_items(nodes=6, rails=2)
    shuffled = list(items)
    random.Random(3).shuffle(shuffled)  # workers take items out of round order, so they do contend
    workers = 4
    log_path = tmp_path / "schedule.jsonl"
    processes = [start(run_items, str(tmp_path / "locks"), str(log_path), f"gw{w}", shuffled[w::workers], 0.01)
                 for w in range(workers)]
    join_all(processes)
    records = ScheduleLog(log_path).read()
    assert sorted(r.item for r in records) == sorted(item for item, _ in items)
    assert {r.worker for r in records} == {f"gw{w}" for w in range(workers)}
    assert find_overlaps(records) == []


def test_opposite_acquisition_orders_do_not_deadlock(tmp_path: Path) -> None:
    forward = [(f"item-{i}", ["nicA", "nicB", "nicC"]) for i in range(15)]
    backward = [(f"meti-{i}", ["nicC", "nicB", "nicA"]) for i in range(15)]
    log_path = tmp_path / "schedule.jsonl"
    processes = [start(run_items, str(tmp_path / "locks"), str(log_path), name, plan, 0.002)
                 for name, plan in (("w1", forward), ("w2", backward), ("w3", forward[::-1]))]
    join_all(processes, timeout_s=60)
    records = ScheduleLog(log_path).read()
    assert len(records) == 45
    assert find_overlaps(records) == []


def test_checker_sees_overlaps_of_unlocked_processes(tmp_path: Path) -> None:
    log_path = tmp_path / "schedule.jsonl"
    barrier = FORK.Barrier(3)
    processes = [start(run_unlocked, str(log_path), f"w{w}", ["node01/rail0", f"node0{w + 2}/rail0"], barrier, 0.5)
                 for w in range(3)]
    join_all(processes)
    overlaps = find_overlaps(ScheduleLog(log_path).read())
    assert {o.resource for o in overlaps} == {"node01/rail0"}
    assert len(overlaps) == 3


def test_timeout_names_the_resource_and_its_holder(tmp_path: Path) -> None:
    lock_dir = str(tmp_path / "locks")
    held, release = FORK.Event(), FORK.Event()
    holder = start(hold_then_wait, lock_dir, ["node02/bnxt_re0"], "node01/bnxt_re0->node02/bnxt_re0", held, release)
    try:
        assert held.wait(10)
        locks = ResourceLocks(lock_dir, timeout_s=0.3)
        began = time.monotonic()
        owner = "node02/bnxt_re0->node03/bnxt_re0"
        with pytest.raises(ResourceLockTimeout) as caught, locks.hold(["node03/bnxt_re0", "node02/bnxt_re0"],
                                                                     owner=owner):
            pytest.fail("the lock was held by another process")
        assert time.monotonic() - began < 5
        assert caught.value.resource == "node02/bnxt_re0"
        assert "node02/bnxt_re0" in str(caught.value)
        assert "held by node01/bnxt_re0->node02/bnxt_re0 (pid" in str(caught.value)
        # the lock taken before the timeout was given back
        with ResourceLocks(lock_dir, timeout_s=0.3).hold(["node03/bnxt_re0"]) as names:
            assert names == ("node03/bnxt_re0",)
    finally:
        release.set()
        join_all([holder])
    with ResourceLocks(lock_dir, timeout_s=2).hold(["node02/bnxt_re0"]):
        pass


def test_hold_sorts_and_deduplicates(tmp_path: Path) -> None:
    with ResourceLocks(tmp_path, timeout_s=1).hold(["b", "a", "b"]) as names:
        assert names == ("a", "b")


@pytest.mark.parametrize(("first", "second"), [("node01/bnxt_re0", "node01_bnxt_re0"), ("gpu:0", "gpu_0")])
def test_lock_file_names_are_safe_and_distinct(first: str, second: str) -> None:
    name_a, name_b = lock_file_name(first), lock_file_name(second)
    assert name_a != name_b
    assert "/" not in name_a and ":" not in name_a


def test_timeout_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        ResourceLocks(tmp_path, timeout_s=0)


def test_threads_of_one_process_exclude_each_other(tmp_path: Path) -> None:
    """Threads sharing one ResourceLocks (one descriptor) must never share a resource."""
    locks = ResourceLocks(tmp_path / "locks", timeout_s=30)
    log_path = tmp_path / "schedule.jsonl"
    log = ScheduleLog(log_path)
    items = [(f"item-{i}", ["nic:node01/bnxt_re0", f"nic:node0{2 + i % 3}/bnxt_re0"]) for i in range(12)]

    def run(item: str, resources: list[str]) -> None:
        with locks.hold(resources, owner=item), log.span(item, resources, "gw0"):
            time.sleep(0.01)
    threads = [threading.Thread(target=run, args=item) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    records = log.read()
    assert len(records) == 12
    assert find_overlaps(records) == []


def test_many_locks_held_at_once_need_few_descriptors(tmp_path: Path) -> None:
    """A 1,024 x 8 round holds about 25,000 locks at once: more than a process may open files."""
    names = [f"nic:node{n:04d}/bnxt_re{r}" for n in range(1024) for r in range(8)]
    before = len(os.listdir("/proc/self/fd"))
    locks = ResourceLocks(tmp_path / "locks", timeout_s=5)
    with locks.hold(names, owner="round") as held:
        assert len(os.listdir("/proc/self/fd")) <= before + SHARDS
        assert held == tuple(sorted(names))
        with pytest.raises(ResourceLockTimeout) as caught, ResourceLocks(tmp_path / "locks", timeout_s=0.2).hold([names[5]]):
            pytest.fail("the lock is held through another descriptor of this process")
        assert "held by round (pid" in str(caught.value)
    with ResourceLocks(tmp_path / "locks", timeout_s=0.2).hold(names[:3]):
        pass
    locks.close()


def _held_records_by_file(folder: Path) -> Counter[str]:
    """The open-file-description record locks held on the lock files of ``folder``, counted per file, from
    /proc/locks (which lists every process's: the files are told apart by device and inode)."""
    ours = {f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
            for found in (path.stat() for path in folder.glob("*.lock"))}
    counts: Counter[str] = Counter()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "OFDLCK" and fields[5] in ours:
            counts[fields[5]] += 1
    return counts


def test_held_locks_are_spread_over_the_lock_files(tmp_path: Path) -> None:
    """The kernel walks a file's whole list of record locks on every lock and unlock: the locks of a round are
    spread over ``SHARDS`` files, none holding more than a small share of them."""
    names = [f"{kind}:node{n:04d}/{rail}" for kind in ("nic", "gpu", "port") for n in range(128) for rail in range(8)]
    locks = ResourceLocks(tmp_path / "locks", timeout_s=5)
    with locks.hold(names, owner="round"):
        held = _held_records_by_file(tmp_path / "locks")
    locks.close()
    assert sum(held.values()) == len(names)
    assert len(held) == SHARDS
    assert max(held.values()) < len(names) / 16, held  # 48 a file on average
