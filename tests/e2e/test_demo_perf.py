"""The connectivity, perftest and collective checks replayed on the demo: same outcomes with and without
xdist, no NIC/GPU/port used by two items at once, and the injected faults localized."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.exclusive import ScheduleLog, find_overlaps

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
SUITES = ["suites/acceptance/test_connectivity.py", "suites/acceptance/test_perftest.py", "suites/acceptance/test_collectives.py"]
BAD_CABLE_LINE = "suspect link node01/bnxt_re2 <-> node03/bnxt_re2"


def replay(out: Path, workers: str) -> tuple[dict[str, str], list[Any], str, dict[str, Any]]:
    log = out / "schedule.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *SUITES, f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}",
         f"--gpufabric-results={out}", f"--schedule-log={log}", "-p", "no:cacheprovider", "-q", "-n", workers],
        cwd=REPO, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {r["node_id"]: r["outcome"] for r in records}, ScheduleLog(log).read(), proc.stdout, {r["node_id"]: r for r in records}


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], list[Any], str, dict[str, Any]]:
    return replay(tmp_path_factory.mktemp("perf-serial"), "0")


@pytest.fixture(scope="module")
def parallel(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], list[Any], str, dict[str, Any]]:
    return replay(tmp_path_factory.mktemp("perf-xdist"), "8")


def test_outcomes_identical_with_and_without_xdist(serial: Any, parallel: Any) -> None:
    assert serial[0] == parallel[0]


@pytest.mark.parametrize("mode", ["serial", "parallel"])
def test_no_resource_used_twice_at_once(mode: str, request: pytest.FixtureRequest) -> None:
    _, schedule, _, _ = request.getfixturevalue(mode)
    assert schedule, "the schedule log is empty"
    assert {r.item for r in schedule} >= {n for n in request.getfixturevalue(mode)[0] if "test_gpu_to_gpu_bandwidth" in n}
    assert find_overlaps(schedule) == []


def test_injected_faults_fail(serial: Any) -> None:
    outcomes = serial[0]
    prefix = "suites/acceptance/"
    assert outcomes[f"{prefix}test_perftest.py::test_nic_switch_nic_bandwidth[node01->node03]"] == "failed"
    assert outcomes[f"{prefix}test_perftest.py::test_gpu_to_gpu_bandwidth[node01->node03]"] == "failed"
    assert outcomes[f"{prefix}test_perftest.py::test_nic_switch_nic_bandwidth[node02->node04]"] == "failed"
    assert outcomes[f"{prefix}test_perftest.py::test_nic_switch_nic_bandwidth[node01->node02]"] == "passed"
    assert outcomes[f"{prefix}test_collectives.py::test_collective_results_correct[node03]"] == "failed"
    assert outcomes[f"{prefix}test_collectives.py::test_collective_results_correct[node01]"] == "passed"


def test_node_pair_items_keep_one_verdict_per_rail(serial: Any) -> None:
    record = serial[3]["suites/acceptance/test_perftest.py::test_nic_switch_nic_bandwidth[node01->node03]"]
    assert record["scope"] == "node_pair" and [pair["rail"] for pair in record["pairs"]] == list(range(8))
    failed = [pair for pair in record["pairs"] if pair["outcome"] != "passed"]
    assert [(pair["pair"], pair["outcome"]) for pair in failed] == [("node01/bnxt_re2->node03/bnxt_re2", "failed")]
    assert failed[0]["measured"] < 380 and failed[0]["expected"] == ">= 380 Gb/s" and failed[0]["source"] and failed[0]["hint"]
    assert failed[0]["message"] == f"rail 2: node01/bnxt_re2 <-> node03/bnxt_re2 {failed[0]['measured']} Gb/s < 380"
    assert failed[0]["message"] in record["message"]


@pytest.mark.parametrize("mode", ["serial", "parallel"])
def test_localization_names_bad_cable_and_no_healthy_nic(mode: str, request: pytest.FixtureRequest) -> None:
    stdout = request.getfixturevalue(mode)[2]
    assert BAD_CABLE_LINE in stdout
    suspects = [line.split()[1].rstrip(":") for line in stdout.splitlines() if line.startswith("suspect ") and " link " not in line]
    assert suspects == ["node04/bnxt_re5"]  # the NIC with MTU 1500 (NET-002 fails with every partner)
