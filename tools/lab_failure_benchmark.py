"""Failures in the middle of a pair sweep, in the namespace lab (root): a PERF-002 sweep over N nodes x 2 rails with
the perftest STAND-IN (pytest_gpufabric.lab.perftest_standin), healthy, then with one node's link taken down
mid-sweep (``lab.faults.link_down``, the leaf's side, as a pulled cable), then with one node's sshd killed mid-sweep
(``lab.faults.kill_sshd``, its sessions with it).

For each run: the wall time and its ratio to the healthy run's, the detection time (from the fault to the moment
the run marked the NIC or node down, from its terminal summary), the outcome of every node-pair item (the
faulty node's must be errors naming the cause, every other one must pass), and the perftest processes left on the
nodes once the run has ended. The checks of the issue: each faulty run ends within 1.5 x the healthy run's wall
time.

    .venv/bin/python -m tools.lab_failure_benchmark [--nodes 8] [--run-s 0.5] [--cap-s 300] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_gpufabric.lab import Lab, sweep_stale
from pytest_gpufabric.lab.faults import AppliedFault
from pytest_gpufabric.lab.perftest_standin import install
from tests.lab.sweepkit import Sweep, outcomes_by_item, perftest_processes, start_sweep

REPO = Path(__file__).resolve().parents[1]
INSTALLER = REPO / "tools" / "install-system-deps.sh"
FAULTY_NODE = 2  # node03
FAULTY_RAIL = 1
SPANS_BEFORE_FAULT = 4  # the fault comes once this many node pairs (all their rails) were measured
RATIO_LIMIT = 1.5


def _faulty(lab: Lab, scenario: str) -> tuple[str, str]:
    """The faulty node's name and what the run marks down: its NIC, or the node."""
    node = lab.node(FAULTY_NODE)
    if scenario == "link_down":
        return node.name, f"{node.name}/{node.nic(FAULTY_RAIL).name}"
    return node.name, node.name


def _marked_at(output: str, name: str, fault_at: float) -> float | None:
    """When the run marked ``name`` down (its terminal summary gives the time of day), in seconds since the epoch."""
    match = re.search(rf"^marked down at (\d\d):(\d\d):(\d\d\.\d+) for the rest of the run: {re.escape(name)}: ", output, re.M)
    if match is None:
        return None
    day = time.localtime(fault_at)
    midnight = time.mktime((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0, 0, 0, -1))
    return midnight + int(match.group(1)) * 3600 + int(match.group(2)) * 60 + float(match.group(3))


def run_scenario(lab: Lab, site: Path, folder: Path, scenario: str, cap_s: float, workers: int) -> dict[str, Any]:
    """One sweep; with a fault injected once ``SPANS_BEFORE_FAULT`` node pairs were measured."""
    inject: dict[str, Callable[[], AppliedFault]] = {
        "link_down": lambda: lab.faults.link_down(FAULTY_NODE, FAULTY_RAIL),
        "sshd_killed": lambda: lab.faults.kill_sshd(FAULTY_NODE),
    }
    sweep = start_sweep(site, folder / scenario, workers=workers)
    fault_at = None
    applied = None
    try:
        if scenario in inject:
            sweep.wait_for_spans(SPANS_BEFORE_FAULT, cap_s)
            applied = inject[scenario]()
            fault_at = time.time()
        returncode = sweep.wait(cap_s)
        left = perftest_processes(lab)
    finally:
        if applied is not None:
            applied.revert()
    return _figures(lab, sweep, scenario, returncode, fault_at, left)


def _figures(lab: Lab, sweep: Sweep, scenario: str, returncode: int | None, fault_at: float | None,
             left: dict[str, list[str]]) -> dict[str, Any]:
    outcomes = outcomes_by_item(sweep.records())
    figures: dict[str, Any] = {"scenario": scenario, "returncode": returncode, "ended": returncode is not None,
                               "wall_s": round(sweep.wall_s, 2), "items": len(outcomes),
                               "perftest_processes_left": sum(len(lines) for lines in left.values()),
                               "perftest_processes_left_on": {node: lines[:3] for node, lines in left.items()}}
    spans = sweep.spans()
    figures["node_pairs_measured"] = len(spans)
    figures["sweep_s"] = round(max(s.end for s in spans) - min(s.start for s in spans), 2) if spans else None
    if fault_at is None:
        figures["all_passed"] = bool(outcomes) and all(outcome == "passed" for outcome in outcomes.values())
        return figures
    node, marked = _faulty(lab, scenario)
    figures["fault_after_s"] = round(fault_at - sweep.started, 2)
    at = _marked_at(sweep.output(), marked, fault_at)
    figures["marked_down"] = marked
    figures["detection_s"] = round(at - fault_at, 2) if at is not None else None
    faulty_items = {item for item in outcomes if node in item.split("->")}
    errors = {str(r["item"]): str(r.get("message", "")) for r in sweep.records() if r.get("check_id") == "PERF-002"}
    figures["faulty_items"] = {item: outcomes[item] for item in sorted(faulty_items)}
    figures["faulty_messages"] = sorted({_cause_line(errors[item]) for item in faulty_items
                                         if outcomes[item] == "error" and errors[item]})[:4]
    figures["other_items_passed"] = all(outcome == "passed" for item, outcome in outcomes.items() if item not in faulty_items)
    figures["faulty_items_error"] = bool(faulty_items) and any(outcomes[item] == "error" for item in faulty_items) and all(
        outcomes[item] in ("error", "passed") for item in faulty_items)
    return figures


def _cause_line(message: str) -> str:
    """The line of an item's message that says why it was not measured."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return next((line for line in lines if "down" in line), lines[min(1, len(lines) - 1)])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=8)
    parser.add_argument("--run-s", type=float, default=0.5, help="how long the stand-in holds each run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cap-s", type=float, default=300.0, help="longest a run may take (then it is killed)")
    parser.add_argument("--scenarios", default="healthy,link_down,sshd_killed")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--keep", type=Path, help="keep each run's output, schedule log and results in this folder")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"nodes": args.nodes, "rails": 2, "run_s": args.run_s, "workers": args.workers,
                              "load_average_at_start": os.getloadavg()[0]}
    sweep_stale()
    with Lab(nodes=args.nodes, rails=2, installer=INSTALLER) as lab, tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        install(lab, args.run_s)
        site = lab.write_inventory(folder / "site.yaml", profile="lab-perftest-standin")
        report["runs"] = [run_scenario(lab, site, folder, scenario, args.cap_s, args.workers)
                          for scenario in args.scenarios.split(",")]
    report["load_average_at_end"] = os.getloadavg()[0]
    healthy = next((run for run in report["runs"] if run["scenario"] == "healthy"), None)
    checks: dict[str, bool] = {}
    for run in report["runs"]:
        if healthy is not None and run is not healthy:
            run["wall_ratio"] = round(run["wall_s"] / healthy["wall_s"], 2)
            run["sweep_ratio"] = round(run["sweep_s"] / healthy["sweep_s"], 2) if run["sweep_s"] and healthy["sweep_s"] else None
            checks[f"{run['scenario']}_within_{RATIO_LIMIT}x"] = run["ended"] and run["wall_ratio"] <= RATIO_LIMIT
            checks[f"{run['scenario']}_faulty_items_error_others_pass"] = run["faulty_items_error"] and run["other_items_passed"]
        checks[f"{run['scenario']}_no_perftest_left"] = run["perftest_processes_left"] == 0
    report["checks"] = checks
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
