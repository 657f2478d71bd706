"""The schedule log: records, concurrent appends, reading back, overlap detection."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from pytest_gpufabric.exclusive import (
    ScheduleLog,
    ScheduleLogError,
    ScheduleRecord,
    find_overlaps,
    parse_schedule_lines,
)

FORK = multiprocessing.get_context("fork")


def append_many(log_path: str, worker: str, count: int) -> None:
    log = ScheduleLog(log_path)
    for index in range(count):
        log.append(ScheduleRecord(f"{worker}-{index}", (f"{worker}/nic{index % 3}",), float(index), index + 0.5,
                                  worker))


def record(item: str, resources: tuple[str, ...], start: float, end: float) -> ScheduleRecord:
    return ScheduleRecord(item, resources, start, end, "gw0")


def test_concurrent_appends_give_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "log" / "schedule.jsonl"
    processes = [FORK.Process(target=append_many, args=(str(path), f"gw{w}", 200)) for w in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert [p.exitcode for p in processes] == [0, 0, 0, 0]
    records = ScheduleLog(path).read()
    assert len(records) == 800
    assert {r.worker for r in records} == {"gw0", "gw1", "gw2", "gw3"}
    assert find_overlaps(records) == []


def test_span_records_even_when_the_body_fails(tmp_path: Path) -> None:
    log = ScheduleLog(tmp_path / "schedule.jsonl")
    with pytest.raises(RuntimeError), log.span("node01->node02", ["node02/nic", "node01/nic", "node01/nic"], "gw1"):
        raise RuntimeError("test failed")
    [entry] = log.read()
    assert (entry.item, entry.resources, entry.worker) == ("node01->node02", ("node01/nic", "node02/nic"), "gw1")
    assert entry.end >= entry.start


def test_missing_log_reads_empty(tmp_path: Path) -> None:
    assert ScheduleLog(tmp_path / "none.jsonl").read() == []


def test_end_before_start_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="before start"):
        ScheduleLog(tmp_path / "s.jsonl").append(record("x", ("a",), 2.0, 1.0))


BAD_RESOURCES = '{"item": "x", "resources": 5, "start": 1, "end": 2, "worker": "w"}'


@pytest.mark.parametrize("line", ['{"item": "x"}', "not json", BAD_RESOURCES], ids=["missing-keys", "not-json", "resources-not-list"])
def test_bad_lines_named(line: str) -> None:
    with pytest.raises(ScheduleLogError, match="line 2"):
        parse_schedule_lines(["", line])


def test_overlap_found_with_non_adjacent_records() -> None:
    long = record("long", ("nic0",), 0.0, 10.0)
    short = record("short", ("nic0",), 1.0, 2.0)
    late = record("late", ("nic0",), 5.0, 6.0)
    overlaps = find_overlaps([long, short, late])
    assert [(o.first.item, o.second.item) for o in overlaps] == [("long", "short"), ("long", "late")]


def test_touching_intervals_and_other_resources_do_not_overlap() -> None:
    records = [record("a", ("nic0",), 0.0, 1.0), record("b", ("nic0",), 1.0, 2.0), record("c", ("nic1",), 0.5, 1.5)]
    assert find_overlaps(records) == []
