"""The recording of a real 2 x H200 machine (local transport) replays offline with the live run's outcomes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_gpufabric.parsers.nccl_tests import busbw_at, parse_nccl_tests

REPO = Path(__file__).resolve().parents[2]
DEVICE = REPO / "recordings" / "device-h200"
EIGHT_GB = 8 * 1024**3


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    results = tmp_path_factory.mktemp("device")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={DEVICE / 'site.yaml'}",
         f"--replay={DEVICE / 'recording'}", f"--gpufabric-results={results}", "-p", "no:cacheprovider", "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]  # completed, with the live run's failures
    rows = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    return {row["node_id"]: row for row in rows}


def _node_pair_id(item: str) -> str:
    return item.replace("[no-nic_pair]", "[no-node_pair]")


def test_same_outcomes_as_the_live_run(replayed: dict[str, dict[str, Any]]) -> None:
    # Checks added to the suite after the recording have items the live run did not have; every item it had
    # must replay, with the outcome it had.
    # The pair checks became node-pair items after the recording: their empty-inventory item changed its id
    # from [no-nic_pair] to [no-node_pair] (the machine has no NIC, so both skip).
    live = {_node_pair_id(item): row for item, row in json.loads((DEVICE / "live-outcomes.json").read_text()).items()}
    assert {item: replayed[item]["outcome"] for item in live if item in replayed} == {item: row["outcome"] for item, row in live.items()}


def test_coll_001_is_the_figure_nccl_tests_printed(replayed: dict[str, dict[str, Any]]) -> None:
    row = replayed["suites/acceptance/test_collectives.py::test_single_node_all_reduce[h200]"]
    recording = yaml.safe_load((DEVICE / "recording" / "nodes" / "h200.yaml").read_text())
    printed = [episode["stdout"] for command in recording["commands"] if command["command"].startswith("all_reduce_perf")
               for episode in command["episodes"] if episode["item"].endswith("test_single_node_all_reduce[h200]")]
    assert len(printed) == 1
    assert row["measured"] == busbw_at(parse_nccl_tests(printed[0]), EIGHT_GB) == 347.95


@pytest.mark.parametrize(("item", "tool"), [
    ("suites/acceptance/test_drivers.py::test_gpu_driver_loaded[h200]", "cat /proc/modules"),
    ("suites/acceptance/test_pcie.py::test_gpu_pcie_link[h200/gpu0]", "grep -H . /sys/bus/pci/devices/0000:00:06.0/"),
])
def test_missing_tools_measured_through_the_kernel(replayed: dict[str, dict[str, Any]], item: str, tool: str) -> None:
    row = replayed[item]
    assert row["outcome"] == "passed"
    assert any(command["command"].startswith(tool) for command in row["commands"])
    assert any(command["exit_code"] == 127 for command in row["commands"])  # lsmod / lspci not installed there


def test_dkms_missing_reads_the_loaded_modules(replayed: dict[str, dict[str, Any]]) -> None:
    # nvidia is loaded (so built for the running kernel); gdrdrv and netxtreme-peer-mem are not, and without dkms
    # whether they are built is not known: still an error, as in the live run, now naming what is unknown.
    row = replayed["suites/acceptance/test_drivers.py::test_dkms_modules_for_running_kernel[h200]"]
    assert row["outcome"] == "error"
    assert "gdrdrv, netxtreme-peer-mem not loaded into kernel" in row["message"]
    assert [command["command"] for command in row["commands"]][-2:] == ["lsmod", "cat /proc/modules"]
