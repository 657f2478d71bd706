"""Several processes recording into one node file at once, and a recorder killed mid-session."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

import yaml

from pytest_gpufabric.recording import RecordingStore
from pytest_gpufabric.recording.nodefile import parse_node_file
from recordkit import record_forever, record_many, record_then_hang_mid_write, result

SPAWN = multiprocessing.get_context("spawn")


def test_concurrent_writers_lose_nothing_and_leave_valid_yaml(recording_dir: Path) -> None:
    workers, count = 4, 30
    processes = [
        SPAWN.Process(target=record_many, args=(str(recording_dir), "run-1", worker, count, 40)) for worker in range(workers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [process.exitcode for process in processes] == [0] * workers
    text = (recording_dir / "nodes" / "node01.yaml").read_text(encoding="utf-8")
    yaml.safe_load(text)  # valid for the pure-Python loader too
    recorded = parse_node_file(text, "node01")
    episodes = [episode for command_episodes in recorded.values() for episode in command_episodes]
    assert len(episodes) == workers * count
    for worker in range(workers):
        prefix = f"test_w{worker}["
        own = [_number(e.item) for e in episodes if e.item and e.item.startswith(prefix)]
        assert sorted(own) == list(range(count))
        shared_order = [_number(e.item) for e in recorded["uptime"] if e.item and e.item.startswith(prefix)]
        assert shared_order == sorted(shared_order)  # each worker's episodes keep their recorded order


def test_a_recorder_killed_mid_session_leaves_a_recording_that_loads(recording_dir: Path) -> None:
    node_file = recording_dir / "nodes" / "node01.yaml"
    seen = 0
    for delay_s in (0.0, 0.013, 0.029):
        process = SPAWN.Process(target=record_forever, args=(str(recording_dir), "run-1", 1500))
        process.start()
        try:
            seen = _wait_for_episodes(node_file, seen + 3, timeout_s=60)
            time.sleep(delay_s)
        finally:
            os.kill(_pid(process), signal.SIGKILL)
            process.join(timeout=30)
        assert process.exitcode == -signal.SIGKILL
        recorded = RecordingStore(recording_dir).load_node("node01")
        assert sum(len(episodes) for episodes in recorded.values()) >= seen
    survivor = RecordingStore(recording_dir, run_id="run-2", lock_timeout_s=10)
    survivor.add(result("node01", "uptime", "after the kill\n"))
    assert survivor.load_node("node01")["uptime"][-1].stdout == "after the kill\n"
    assert list(node_file.parent.glob(".*.tmp")) == []  # leftovers of the killed writer are cleared


def test_a_recorder_killed_inside_its_write_leaves_the_previous_file(recording_dir: Path) -> None:
    hanging = SPAWN.Event()
    process = SPAWN.Process(target=record_then_hang_mid_write, args=(str(recording_dir), "run-1", hanging))
    process.start()
    try:
        assert hanging.wait(timeout=60), "the recorder never reached its write"
    finally:
        os.kill(_pid(process), signal.SIGKILL)
        process.join(timeout=30)
    nodes = recording_dir / "nodes"
    leftovers = list(nodes.glob(".node01.yaml.*.tmp"))
    assert len(leftovers) == 1 and "never stored" in leftovers[0].read_text(encoding="utf-8")
    store = RecordingStore(recording_dir, run_id="run-2", lock_timeout_s=10)
    assert [e.stdout for e in store.load_node("node01")["uptime"]] == ["up 0\n", "up 1\n", "up 2\n"]
    assert store.find("node01", "uptime", "test_up[2]").stdout == "up 2\n"
    store.add(result("node01", "hostname", "node01\n"))  # the lock died with the killed process
    assert list(nodes.glob(".*.tmp")) == []


def _pid(process: multiprocessing.process.BaseProcess) -> int:
    assert process.pid is not None, "the process was started"
    return process.pid


def _number(item: str) -> int:
    """The episode number in an item id such as ``test_w2[17]``."""
    return int(item.split("[")[1].rstrip("]"))


def _wait_for_episodes(node_file: Path, at_least: int, timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if node_file.is_file():
            count = sum(len(episodes) for episodes in parse_node_file(node_file.read_text(encoding="utf-8"), "node01").values())
            if count >= at_least:
                return count
        time.sleep(0.05)
    raise AssertionError(f"fewer than {at_least} episodes recorded after {timeout_s}s")
