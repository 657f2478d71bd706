"""Replay overhead: looking a command up in a node file of 500 recorded commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.recording import RecordingStore, create_recording
from pytest_gpufabric.recording.integrity import seal
from pytest_gpufabric.recording.nodefile import Episode, render_node_file
from pytest_gpufabric.recording.store import NodeCommands

COMMANDS = 500


@pytest.fixture
def large_recording(recording_dir: Path) -> Path:
    """A recording whose node01 holds 500 commands of two episodes each, ethtool-like outputs."""
    create_recording(recording_dir, "benchmark")
    commands: NodeCommands = {}
    for number in range(COMMANDS):
        stdout = "".join(f"\trx_queue_{queue}_bytes: {number * queue}\n" for queue in range(40))
        commands[f"ethtool -S benic{number}p1"] = tuple(
            Episode(0, 0.05, f"test_stats[node01/benic{number}p1]", "run-1", stdout, "") for _ in range(2)
        )
    (recording_dir / "nodes" / "node01.yaml").write_text(seal(render_node_file("node01", commands)), encoding="utf-8")
    return recording_dir


@pytest.mark.benchmark(group="recording", max_time=0.2, min_rounds=20, warmup=False)
def test_find_in_a_500_command_node_file(benchmark: Any, large_recording: Path) -> None:
    store = RecordingStore(large_recording)
    store.find("node01", "ethtool -S benic0p1")  # the node file is read once per store

    def look_up() -> str:
        return store.find("node01", "ethtool -S benic417p1", "test_stats[node01/benic417p1]").stdout

    assert "rx_queue_39_bytes: 16263\n" in benchmark(look_up)


@pytest.mark.benchmark(group="recording", max_time=0.5, min_rounds=3, warmup=False)
def test_first_find_reads_the_500_command_node_file(benchmark: Any, large_recording: Path) -> None:
    def first_look_up() -> int:
        return RecordingStore(large_recording).find("node01", "ethtool -S benic499p1").exit_code

    assert benchmark(first_look_up) == 0
