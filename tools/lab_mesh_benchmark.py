"""The mesh-check benchmark in the namespace lab (root): NET-001, NET-002 and HOST-008 over N nodes x R rails,
real sshd per node, real ping/fping and ssh between the nodes.

Measures one pytest run of the three checks (``-n WORKERS``): its wall time, each check's item durations (sum and
longest, pytest's own times in a JUnit XML file) and the outcome of every item; then the same with one injected bad path each: a rail's link taken down at its leaf port, and one
NIC at MTU 1500. ``--pair-policy rounds:K`` measures a subset of the node pairs (the per-node-pair figures of a
sequential design are then projected to all pairs: ``projected_all_pairs_s``).

    .venv/bin/python -m tools.lab_mesh_benchmark [--nodes 16] [--rails 2] [--workers 2] [--pair-policy all]
                                                 [--no-faults] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from pytest_gpufabric.lab import Lab, sweep_stale
from tools.figures_json import emit

REPO = Path(__file__).resolve().parents[1]
INSTALLER = REPO / "tools" / "install-system-deps.sh"
SUITE = "suites/acceptance/test_connectivity.py"
TESTS = {"NET-001": "test_ping_mesh", "NET-002": "test_jumbo_frames", "HOST-008": "test_passwordless_ssh"}
FAULTS = {"link-down": ("node03", 1), "mtu-1500": ("node05", 0)}  # node, rail
RUN_TIMEOUT_S = 3600


def run_checks(site: Path, out: Path, workers: str, policy: str) -> dict[str, Any]:
    """One pytest run of the three checks: wall time, per-check figures and every item's outcome."""
    out.mkdir(parents=True, exist_ok=True)
    selected = [f"{SUITE}::{test}" for test in TESTS.values()]
    started = time.monotonic()
    load = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *selected, f"--cluster={site}", f"--gpufabric-results={out}",
         f"--pair-policy={policy}", f"--junitxml={out / 'junit.xml'}", "-p", "no:cacheprovider", "-q", "-n", workers],
        cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    wall = time.monotonic() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"pytest exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    times: dict[str, list[float]] = {test: [] for test in TESTS.values()}  # pytest's own item times (junit)
    for case in ET.parse(out / "junit.xml").iter("testcase"):
        test = case.get("name", "").split("[")[0]
        if test in times:
            times[test].append(float(case.get("time", "0")))
    checks: dict[str, Any] = {}
    for check_id, test in TESTS.items():
        mine = [r for r in records if r["check_id"] == check_id]
        durations = sorted(times[test])
        checks[check_id] = {
            "items": len(mine), "item_seconds_sum": round(sum(durations), 2),
            "item_seconds_max": round(durations[-1], 2) if durations else None,
            "not_passed": sorted(f"{r['item']}: {r['outcome']}" for r in mine if r["outcome"] != "passed"),
        }
    return {"workers": workers, "pair_policy": policy, "wall_s": round(wall, 2), "load_average_at_start": load,
            "checks": checks, "progress_lines": [line for line in proc.stdout.splitlines()
                                                 if " mesh" in line or " round " in line],
            "tail": proc.stdout.splitlines()[-3:]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=16)
    parser.add_argument("--rails", type=int, default=2)
    parser.add_argument("--workers", default="2")
    parser.add_argument("--pair-policy", default="all")
    parser.add_argument("--no-faults", action="store_true", help="the healthy run only")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"nodes": args.nodes, "rails": args.rails, "node_pairs": args.nodes * (args.nodes - 1) // 2}
    sweep_stale()
    with Lab(nodes=args.nodes, rails=args.rails, installer=INSTALLER) as lab, tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        site = lab.write_inventory(work / "site.yaml")
        report["healthy"] = run_checks(site, work / "healthy", args.workers, args.pair_policy)
        if not args.no_faults:
            for name, (node, rail) in FAULTS.items():
                fault = lab.faults.link_down(node, rail) if name == "link-down" else lab.faults.mtu(node, rail, 1500)
                with fault:
                    report[name] = run_checks(site, work / name, args.workers, args.pair_policy)
    measured_pairs = report["healthy"]["checks"]["NET-001"]["items"]
    if measured_pairs:
        scale = report["node_pairs"] / measured_pairs
        report["projected_all_pairs_s"] = {
            check_id: round(figures["item_seconds_sum"] * scale / max(1, int(args.workers)), 1)
            for check_id, figures in report["healthy"]["checks"].items()}
    emit(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
