"""The acceptance suite replayed on the bundled demo: deterministic, xdist-safe, faults found with hints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.reporting.acceptance.load import read_records

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"

INJECTED_FAULTS = {
    "suites/acceptance/test_host.py::test_iommu_disabled_or_passthrough[node02]": "HOST-001",
    "suites/acceptance/test_host.py::test_numa_balancing_disabled[node03]": "HOST-002",
    "suites/acceptance/test_pcie.py::test_acs_disabled_on_nic_gpu_path[node02/bnxt_re3~gpu3]": "PCI-001",
    "suites/acceptance/test_link.py::test_interface_mtu[node04/bnxt_re5]": "LNK-005",
}


def replay(results: Path, *extra: str) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}",
         f"--gpufabric-results={results}", "-p", "no:cacheprovider", "-q", *extra],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]  # completed, with the injected failures
    return read_records(results / "results.jsonl")[0]


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("serial")
    replay(out, "-n", "0")
    return out / "results.jsonl"


def test_every_injected_fault_of_the_first_checks_fails_and_nothing_else(serial: Path) -> None:
    records = read_records(serial)[0]
    first_checks = set(INJECTED_FAULTS.values())
    failed = {r["node_id"]: r["check_id"] for r in records if r["outcome"] not in ("passed", "skipped") and r["check_id"] in first_checks}
    assert failed == INJECTED_FAULTS
    for record in records:
        if record["outcome"] == "failed":
            assert record["measured"] is not None and record["expected"] and record["source"] and record["hint"]
            assert record["commands"], "the raw evidence is listed"


def test_xdist_gives_identical_results(serial: Path, tmp_path: Path) -> None:
    replay(tmp_path, "-n", "4")
    assert (tmp_path / "results.jsonl").read_text() == serial.read_text()


def test_two_serial_replays_give_identical_results_files(serial: Path, tmp_path: Path) -> None:
    replay(tmp_path, "-n", "0")
    assert (tmp_path / "results.jsonl").read_bytes() == serial.read_bytes()
