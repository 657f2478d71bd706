"""A run's shared state: down marks and the stop flag (first cause stays, seen by every process), node health
(transport failures in a row), and the site's lock folder (shared by every run against the site, private to
its user)."""

from __future__ import annotations

import multiprocessing
import time
import os
from pathlib import Path

import pytest

from pytest_gpufabric.errors import TransportError, UsageError
from pytest_gpufabric.exclusive.down import DownMarks, NodeHealth
from pytest_gpufabric.exclusive.lock_dir import default_lock_dir, prepare_lock_dir, run_dir, site_key
from pytest_gpufabric.exclusive.stop import StopFlag
from pytest_gpufabric.inventory import Inventory

FORK = multiprocessing.get_context("fork")


def _mark(folder: str, cause: str) -> None:
    DownMarks(Path(folder)).mark("node03", cause)


def test_a_mark_made_in_another_process_is_seen_with_its_first_cause(tmp_path: Path) -> None:
    marks = DownMarks(tmp_path / "down")
    assert marks.cause("node03") is None
    processes = [FORK.Process(target=_mark, args=(str(tmp_path / "down"), f"cause {n}")) for n in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=30)
    first = marks.cause("node03")
    assert first is not None and first.startswith("cause ")
    assert marks.mark("node03", "a later cause") == first
    assert {name: mark.cause for name, mark in marks.all().items()} == {"node03": first}
    assert [path.name for path in (tmp_path / "down").iterdir() if path.name.startswith(".")] == []


def test_a_node_is_marked_down_after_failures_in_a_row_and_then_refused_at_once(tmp_path: Path) -> None:
    health = NodeHealth(DownMarks(tmp_path / "down"), down_after=3)
    health.failed("node01", "connection lost: SSH error")
    health.succeeded("node01")  # a success in between: the count starts again
    for cause in ("connection lost: first", "no connection", "no connection"):
        health.refuse_if_down("node01")
        health.failed("node01", cause)
    with pytest.raises(TransportError, match="node01: marked down for the rest of the run: connection lost: first"):
        health.refuse_if_down("node01")
    health.refuse_if_down("node02")


def test_the_stop_flag_keeps_its_first_reason(tmp_path: Path) -> None:
    flag, other_process_view = StopFlag(tmp_path), StopFlag(tmp_path)
    assert other_process_view.reason() is None
    assert flag.set("SIGTERM to pid 10") == "SIGTERM to pid 10"
    assert flag.set("worker gw1 died") == "SIGTERM to pid 10"
    assert other_process_view.reason() == "SIGTERM to pid 10"


def test_the_stop_takes_effect_at_the_moment_its_first_reason_is_in_place(tmp_path: Path) -> None:
    flag = StopFlag(tmp_path)
    assert flag.since() is None
    before = time.time()
    flag.set("SIGINT to pid 10")
    after = time.time()
    since = flag.since()
    assert since is not None and before <= since <= after
    time.sleep(0.01)
    flag.set("worker gw1 died")  # a later reason changes neither the reason nor the moment
    assert StopFlag(tmp_path).since() == since


def test_every_run_against_a_site_shares_one_lock_folder_and_another_cluster_does_not(demo_inventory: Inventory,
                                                                                     tmp_path: Path) -> None:
    folder = default_lock_dir(demo_inventory, tmp_path)
    assert folder == default_lock_dir(demo_inventory, tmp_path) and folder.name.startswith("gpufabric-locks-")
    moved = demo_inventory.nodes[0].__class__(**{**demo_inventory.nodes[0].__dict__, "address": "10.99.0.1"})
    other = demo_inventory.__class__(**{**demo_inventory.__dict__, "nodes": (moved, *demo_inventory.nodes[1:])})
    assert site_key(other) != site_key(demo_inventory)
    assert prepare_lock_dir(folder) == folder and (folder.stat().st_mode & 0o777) == 0o700
    assert run_dir(folder, "abc123") == folder / "runs" / "abc123"


def test_a_lock_folder_of_another_user_or_a_link_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(UsageError, match="is not a folder; choose another with --lock-dir"):
        prepare_lock_dir(tmp_path / "link")
    if os.geteuid() == 0:
        foreign = tmp_path / "foreign"
        foreign.mkdir()
        os.chown(foreign, 4321, 4321)
        with pytest.raises(UsageError, match="belongs to user id 4321"):
            prepare_lock_dir(foreign)
