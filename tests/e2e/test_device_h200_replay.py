"""The recordings of real H200 machines (local transport) replay offline with the live runs' outcomes.

device-h200 is a 2 x H200 machine (NVLink through the board's NVSwitches): the single-node all_reduce figure, with
no documented threshold for that shape. device-h200-1gpu is a 1 x H200
machine recorded after the kernel fallbacks of DRV-011, HOST-003 and GPU-004 existed: the node checks whose tool
is missing there measure through /proc and /sys.
"""

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
RECORDINGS = REPO / "recordings"
TWO_GPUS = "device-h200"
ONE_GPU = "device-h200-1gpu"
EIGHT_GB = 8 * 1024**3
# Checks whose commands changed after the 2-GPU recording (their kernel fallbacks came later): its replay lacks
# the fallback's command, so they are compared on the 1-GPU recording, which has it.
CHANGED_AFTER_TWO_GPU_RECORDING = {
    "suites/acceptance/test_drivers.py::test_rdma_device_names[h200]",  # DRV-011: /sys/class/infiniband
    "suites/acceptance/test_host.py::test_no_host_firewall[h200]",  # HOST-003: /proc/<pid>/comm, ufw.conf
    "suites/acceptance/test_gpu.py::test_fabric_manager[h200]",  # GPU-004: /proc/<pid>/comm
}

# Verdicts that rules added after the live runs decide differently from them, with the reason; the rest of each
# live run replays with its own outcome.
COLL_001 = "suites/acceptance/test_collectives.py::test_single_node_all_reduce[h200]"
DECIDED_BY_LATER_RULES = {
    # Thresholds for the machines really there: S1's ~480 GB/s is 8 x H100 behind NVSwitch, so a 2- or 1-GPU
    # machine has no documented threshold: an error naming the site value to set, no longer failed against it.
    COLL_001: "error",
    # Verdicts from what was read: bnxt_en / bnxt_re / gdrdrv read as not loaded decide the item, although modinfo's
    # version or gdrcopy_sanity (not installed there) could not be measured after it: failed, no longer an error.
    "suites/acceptance/test_drivers.py::test_bnxt_en_version[h200]": "failed",
    "suites/acceptance/test_drivers.py::test_bnxt_re_version[h200]": "failed",
    "suites/acceptance/test_gpu.py::test_gdrcopy[h200]": "failed",
}

Rows = dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Replays a recording once per module; a recording's live run had failures, so pytest exits 1."""
    cache: dict[str, Rows] = {}

    def replayed(name: str) -> Rows:
        if name not in cache:
            device, results = RECORDINGS / name, tmp_path_factory.mktemp(name)
            proc = subprocess.run(
                [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={device / 'site.yaml'}",
                 f"--replay={device / 'recording'}", f"--gpufabric-results={results}", "-p", "no:cacheprovider", "-q"],
                cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
            )
            assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
            rows = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
            cache[name] = {row["node_id"]: row for row in rows}
        return cache[name]

    return replayed


SWITCH_PORT_CHECKS = ("test_dscp_classification", "test_pfc_watchdog")  # SW-003, SW-005: per switch, then per port


def _node_pair_id(item: str) -> str:
    """An item's id as the suite names it now: the pair checks became node-pair items, SW-003 and SW-005 port items."""
    if item.endswith("[no-switch]") and any(f"::{name}[" in item for name in SWITCH_PORT_CHECKS):
        item = item.replace("[no-switch]", "[no-switch_port]")
    return item.replace("[no-nic_pair]", "[no-node_pair]")


@pytest.mark.parametrize(("name", "changed"), [(TWO_GPUS, CHANGED_AFTER_TWO_GPU_RECORDING), (ONE_GPU, set())])
def test_same_outcomes_as_the_live_run(replay: Any, name: str, changed: set[str]) -> None:
    # Checks added to the suite after a recording have items its live run did not have; every item it had
    # must replay, with the outcome it had.
    # The pair checks became node-pair items after the 2-GPU recording: their empty-inventory item changed its id
    # from [no-nic_pair] to [no-node_pair] (the machine has no NIC, so both skip); SW-003 and SW-005 became port
    # items: [no-switch] to [no-switch_port] (the machine has no switch, so both skip).
    replayed = replay(name)
    live = {_node_pair_id(item): row for item, row in json.loads((RECORDINGS / name / "live-outcomes.json").read_text()).items()
            if item not in changed}
    assert live
    expected = {item: DECIDED_BY_LATER_RULES.get(item, row["outcome"]) for item, row in live.items()}
    assert {item: replayed[item]["outcome"] for item in live if item in replayed} == expected


def _printed_all_reduce(name: str) -> list[str]:
    recording = yaml.safe_load((RECORDINGS / name / "recording" / "nodes" / "h200.yaml").read_text())
    return [episode["stdout"] for command in recording["commands"] if command["command"].startswith("all_reduce_perf")
            for episode in command["episodes"] if episode["item"].endswith("test_single_node_all_reduce[h200]")]


def test_coll_001_of_two_gpus_is_not_judged_against_the_eight_gpu_figure(replay: Any) -> None:
    # The figure nccl-tests printed, and no documented threshold for 2 x H200 behind NVSwitch: the error names the
    # shape, the measured value and the site.yaml key, never a verdict against S1's 8-GPU figure.
    row = replay(TWO_GPUS)[COLL_001]
    printed = _printed_all_reduce(TWO_GPUS)
    assert len(printed) == 1
    assert busbw_at(parse_nccl_tests(printed[0]).facts, EIGHT_GB) == 347.95
    assert row["outcome"] == "error" and not row["measurements"]
    assert "no documented threshold for 2 x H200 NVSwitch; measured 347.95 GB/s" in row["message"]
    assert "set `thresholds.COLL-001.busbw_8gb_gbs` in site.yaml" in row["message"]


def test_coll_001_with_a_site_value_is_judged_against_it(tmp_path: Any) -> None:
    # The same replay with the value a site sets (as `gpufabric baseline` proposes it): judged, marked a site value.
    site = yaml.safe_load((RECORDINGS / TWO_GPUS / "site.yaml").read_text())
    site["thresholds"] = {"COLL-001": {"busbw_8gb_gbs": 330}}
    (tmp_path / "site.yaml").write_text(yaml.safe_dump(site))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={tmp_path / 'site.yaml'}", "-k", "test_single_node_all_reduce",
         f"--replay={RECORDINGS / TWO_GPUS / 'recording'}", f"--gpufabric-results={tmp_path}", "-p", "no:cacheprovider", "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    row = json.loads((tmp_path / "results.jsonl").read_text())
    assert (row["outcome"], row["measured"]) == ("passed", 347.95)
    assert row["source"].startswith("site value: ") and "8 GPUs NVSwitch: >= 456 GB/s" in row["source"]


def test_one_gpu_all_reduce_moves_nothing_between_gpus(replay: Any) -> None:
    # One GPU: nccl-tests prints a bus bandwidth of 0 (the factor 2(n-1)/n is 0); no document gives a figure for one
    # GPU, so it is an error naming the missing threshold, never a pass.
    row = replay(ONE_GPU)[COLL_001]
    printed = _printed_all_reduce(ONE_GPU)
    assert len(printed) == 1 and "-g 1" in row["commands"][0]["command"]
    assert busbw_at(parse_nccl_tests(printed[0]).facts, EIGHT_GB) == 0.0
    assert row["outcome"] == "error" and "no documented threshold for 1 x H200; measured 0.0 GB/s" in row["message"]


@pytest.mark.parametrize(("name", "item", "tool"), [
    (TWO_GPUS, "suites/acceptance/test_drivers.py::test_gpu_driver_loaded[h200]", "cat /proc/modules"),
    (TWO_GPUS, "suites/acceptance/test_pcie.py::test_gpu_pcie_link[h200/gpu0]", "grep -H . /sys/bus/pci/devices/0000:00:06.0/"),
    (ONE_GPU, "suites/acceptance/test_drivers.py::test_gpu_driver_loaded[h200]", "cat /proc/modules"),
    (ONE_GPU, "suites/acceptance/test_pcie.py::test_gpu_pcie_link[h200/gpu0]", "grep -H . /sys/bus/pci/devices/0000:00:06.0/"),
    (ONE_GPU, "suites/acceptance/test_drivers.py::test_rdma_device_names[h200]", "grep -H . /sys/class/infiniband/"),
    (ONE_GPU, "suites/acceptance/test_host.py::test_no_host_firewall[h200]", "cat /proc/[0-9]*/comm"),
])
def test_missing_tools_measured_through_the_kernel(replay: Any, name: str, item: str, tool: str) -> None:
    row = replay(name)[item]
    assert row["outcome"] == "passed"
    assert any(command["command"].startswith(tool) for command in row["commands"])
    assert any(command["exit_code"] == 127 for command in row["commands"])  # lsmod, lspci, rdma, systemctl not installed


def test_fabric_manager_state_read_from_the_process_table(replay: Any) -> None:
    # systemctl is missing there; the process table shows no nv-fabricmanager (a single GPU has no NVSwitch to
    # manage): a measured 'inactive', a failure naming where the state came from, no longer an unknown state.
    row = replay(ONE_GPU)["suites/acceptance/test_gpu.py::test_fabric_manager[h200]"]
    assert [(command["command"], command["exit_code"]) for command in row["commands"]][:2] == [
        ("systemctl is-active nvidia-fabricmanager", 127), ("cat /proc/[0-9]*/comm", 0)]
    assert (row["outcome"], row["measured"]) == ("failed", "inactive")
    assert "/proc/<pid>/comm (systemctl not installed)" in row["message"]


@pytest.mark.parametrize("name", [TWO_GPUS, ONE_GPU])
def test_dkms_missing_reads_the_loaded_modules(replay: Any, name: str) -> None:
    # nvidia is loaded (so built for the running kernel); gdrdrv and netxtreme-peer-mem are not, and without dkms
    # whether they are built is not known: still an error, as in the live run, now naming what is unknown.
    row = replay(name)["suites/acceptance/test_drivers.py::test_dkms_modules_for_running_kernel[h200]"]
    assert row["outcome"] == "error"
    assert "gdrdrv, netxtreme-peer-mem not loaded into kernel" in row["message"]
    assert [command["command"] for command in row["commands"]][-2:] == ["lsmod", "cat /proc/modules"]
