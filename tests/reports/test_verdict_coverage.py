"""The verdict checks coverage: real replays of the demo that leave required items out are never accepted, and
the cover lists what is missing by check and node. The plan is written before any selection, so a ``-k``
subset, a ``--deselect``ed check, a worker killed by SIGKILL in the middle of a pair sweep and the skipped soak
all read "not accepted"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from acceptance_dom import Element, parse_dom
from demo_runs import SuiteRun, replay

from pytest_gpufabric.cli import main

PARTIAL = re.compile(r"partial run: ([\d,]+) of ([\d,]+) required items")

# Loaded into the xdist workers with -p: the worker measuring PERF-002 of node01->node03 kills itself (SIGKILL),
# as the OOM killer or a lost node would.
KILLING_PLUGIN = """
import os
import signal

TARGET = "test_nic_switch_nic_bandwidth[node01->node03]"


def pytest_runtest_call(item):
    if hasattr(item.config, "workerinput") and item.name == TARGET:
        os.kill(os.getpid(), signal.SIGKILL)
"""


def _required(run: SuiteRun) -> int:
    plan = json.loads((run.run_dir / "plan.json").read_text(encoding="utf-8"))
    return sum(len(check["items"]) for check in plan["checks"].values())


def _report(run: SuiteRun, out: Path) -> Element:
    assert main(["report", str(run.run_dir), "-o", str(out), "--no-pdf"]) == 0
    return parse_dom((out / "report.html").read_text(encoding="utf-8"))


def _missing(dom: Element) -> dict[str, int]:
    return {row.attrs["data-check"]: int(row.attrs["data-missing"]) for row in dom.by_id("missing-table").find_all("tr")
            if "data-check" in row.attrs}


def test_a_k_subset_is_a_partial_run(tmp_path: Path) -> None:
    run = replay(tmp_path / "results", "-k", "test_bnxt_en_version or test_interface_mtu")

    ran = len(run.records())
    match = PARTIAL.search(run.verdict_line())
    assert match is not None, run.output[-2000:]
    assert (int(match.group(1)), int(match.group(2).replace(",", ""))) == (ran, _required(run))
    dom = _report(run, tmp_path / "report")
    assert dom.by_id("verdict").text.startswith(f"not accepted: partial run: {ran} of {_required(run):,} required items")
    missing = _missing(dom)
    assert "DRV-001" not in missing and "LNK-005" not in missing  # what ran is not missing
    assert missing["PERF-002"] == 15 and missing["LNK-001"] == 48  # every node pair, every NIC
    row = next(r for r in dom.by_id("missing-table").find_all("tr") if r.attrs.get("data-check") == "LNK-001")
    assert "node[01-06]" in row.text  # folded nodeset


def test_a_deselected_required_check_is_missing(tmp_path: Path) -> None:
    run = replay(tmp_path / "results", "--deselect", "suites/acceptance/test_drivers.py::test_bnxt_en_version",
                 paths=("suites/acceptance/test_drivers.py",))

    assert "DRV-001" not in {r["check_id"] for r in run.records()}
    assert run.verdict_line().startswith("verdict: not accepted: partial run")
    assert _missing(_report(run, tmp_path / "report"))["DRV-001"] == 6


def test_a_worker_killed_mid_sweep_is_an_error_and_the_rest_missing(tmp_path: Path) -> None:
    (tmp_path / "kill_worker.py").write_text(KILLING_PLUGIN, encoding="utf-8")
    run = replay(tmp_path / "results", "-n", "2", "--max-worker-restart=0", "-p", "kill_worker",
                 paths=("suites/acceptance/test_perftest.py",), pythonpath=tmp_path)

    crashed = [r for r in run.records() if "worker crashed" in str(r["message"])]
    assert [(r["check_id"], r["item"], r["outcome"]) for r in crashed] == [("PERF-002", "node01->node03", "error")]
    assert run.exit_code != 0
    assert "not accepted" in run.verdict_line() and "accepted" != run.verdict_line()
    dom = _report(run, tmp_path / "report")
    assert dom.by_id("verdict").text.startswith("not accepted: partial run")
    failures = [row.attrs["data-node-id"] for row in dom.by_id("failures").find_all("tr") if "data-node-id" in row.attrs]
    assert "suites/acceptance/test_perftest.py::test_nic_switch_nic_bandwidth[node01->node03]" in failures


def test_the_skipped_soak_is_missing(tmp_path: Path) -> None:
    run = replay(tmp_path / "results", paths=("suites/acceptance/test_perftest.py",))

    soak = [r for r in run.records() if r["check_id"] == "PERF-008"]
    assert soak and {r["outcome"] for r in soak} == {"skipped"}
    dom = _report(run, tmp_path / "report")
    assert _missing(dom)["PERF-008"] == len(soak)
    assert "soak is opt-in" in dom.by_id("missing-table").text
    assert "PERF-008" in dom.by_id("skip-table").text  # every skip reason is listed


@pytest.mark.parametrize("mixed", ["OSU-001"])
def test_a_check_that_finds_itself_not_applicable_is_not_missing(tmp_path: Path, mixed: str) -> None:
    """OSU-001 between an AMD and an NVIDIA node skips itself (device buffers need one vendor): documented."""
    run = replay(tmp_path / "results", "-k", "test_osu_point_to_point", paths=("suites/acceptance/test_osu.py",))

    skipped = [r for r in run.records() if r["check_id"] == mixed and r["outcome"] == "skipped"]
    assert skipped and all(r.get("not_applicable") for r in skipped)
    assert mixed not in _missing(_report(run, tmp_path / "report"))
