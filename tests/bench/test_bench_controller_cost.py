"""The controller's cost per test against the many-node loopback target (one SSH server answering for every node
name, stand-ins answering at once): a PERF-002 round and a NET-001 mesh, CPU of the pytest process tree with
the collection subtracted, the target's CPU read apart (``tools/controller_cost.py``, which also runs 1,024 x 8).
Small here (64 and 32 nodes x 8 rails): the figures land in the benchmark's extra_info; the bounds are generous
(a shared machine), the tool reports the real figures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.lab.loopback_target import LoopbackTarget
from tools.controller_cost import measure


@pytest.fixture(scope="module")
def target() -> Iterator[LoopbackTarget]:
    with LoopbackTarget(64, rails=8) as up:
        yield up


def _figures(benchmark: Any, target: LoopbackTarget, tmp_path: Path, check: str, policy: str) -> dict[str, Any]:
    site = target.write_inventory(tmp_path / "site.yaml")
    assert target.pid is not None
    figures: dict[str, Any] = benchmark.pedantic(measure, args=(site, tmp_path, check, policy, "0", target.pid),
                                                 rounds=1, iterations=1)
    benchmark.extra_info.update({key: value for key, value in figures.items() if key != "progress_lines"})
    return figures


def test_controller_cpu_per_nic_pair_of_a_round(benchmark: Any, target: LoopbackTarget, tmp_path: Path) -> None:
    figures = _figures(benchmark, target, tmp_path, "PERF-002", "rounds:1")
    assert figures["outcomes"] == {"passed": 32} and figures["nic_pairs"] == 256
    assert figures["per_nic_pair_ms"] < 60, figures  # 25-32 ms before the node-pair runs at 256 nodes, ~11 after
    assert figures["target_cpu_s"] > 0  # read apart: the target's commands are not the controller's


def test_a_mesh_issues_every_node_at_once(benchmark: Any, target: LoopbackTarget, tmp_path: Path) -> None:
    figures = _figures(benchmark, target, tmp_path, "NET-001", "rounds:4")
    assert figures["outcomes"] == {"passed": 128}
    assert any("NET-001 mesh wave 1/1 done: nodes probed in" in line for line in figures["progress_lines"]), figures
