"""The pair-scheduling benchmark in the namespace lab (root): an all-pairs sweep of PERF-002 over N nodes x 2
rails with the perftest STAND-IN (pytest_gpufabric.lab.perftest_standin) on every node, over real SSH.

Measures, with -n 2 and -n 0: the sweep (first to last measurement in the schedule log: one span per node pair,
all its rails at once), per round,
and the run's wall time, against rounds x test time; keeps the estimate printed before the sweep and the
progress lines; checks from the schedule log that no NIC, GPU or port was used
by two measurements at once. Then injects bad NIC pairs and checks that ``--lf`` measures exactly their node
pairs and ``--rerun-failed-pairs`` exactly those NIC pairs. One PERF-002 NIC-pair test runs ib_write_bw both
ways; the stand-in holds each run ``--run-s`` (default 0.5 s), so one NIC-pair test takes 1 s.

    .venv/bin/python -m tools.lab_pair_benchmark [--nodes 16] [--run-s 0.5] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_gpufabric.lab import Lab, sweep_stale
from pytest_gpufabric.lab.perftest_standin import inject_bad_pair, install
from pytest_gpufabric.exclusive import ScheduleLog, find_overlaps
from pytest_gpufabric.scheduling.rounds import lower_bound_rounds
from tools.figures_json import emit

REPO = Path(__file__).resolve().parents[1]
INSTALLER = REPO / "tools" / "install-system-deps.sh"
CHECK_TEST = "suites/acceptance/test_perftest.py::test_nic_switch_nic_bandwidth"
PROFILE = "lab-perftest-standin"
BAD_PAIRS = (("node01", "node02", 1), ("node03", "node07", 0), ("node05", "node06", 1))
RUN_TIMEOUT_S = 600


def run_sweep(site: Path, out: Path, workers: str, *extra: str) -> dict[str, Any]:
    """One pytest run of PERF-002; its wall time, the schedule log's spans and the results."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "schedule.jsonl"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", CHECK_TEST, f"--cluster={site}", f"--schedule-log={log}",
         f"--gpufabric-results={out}", "-o", f"cache_dir={site.parent / 'pytest-cache'}", "-q", "-n", workers, *extra],
        cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    wall = time.monotonic() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"pytest exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}")
    spans = ScheduleLog(log).read()
    sweep_s = max(s.end for s in spans) - min(s.start for s in spans) if spans else 0.0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    measured = [pair["pair"] for record in records for pair in record.get("pairs") or ()]  # one verdict per NIC pair
    return {
        "workers": workers, "wall_s": round(wall, 2),
        "sweep_s": round(sweep_s, 2),
        "node_pair_items": sorted({span.item.split("[")[-1].rstrip("]") for span in spans}),
        "nic_pairs_measured": len(measured), "distinct_nic_pairs": len(set(measured)), "measurement_spans": len(spans),
        "overlaps": len(find_overlaps(spans)), "items": len(records),
        "failed_items": sorted(r["item"] for r in records if r["outcome"] == "failed"),
        "estimate_lines": [line for line in proc.stdout.splitlines() if " sweep: " in line or line.startswith("pair sweeps")],
        "progress_lines": [line for line in proc.stdout.splitlines() if " round " in line and "done" in line],
        "results": str(out / "results.jsonl"),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=16)
    parser.add_argument("--run-s", type=float, default=0.5, help="how long the stand-in holds each run")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    rounds = lower_bound_rounds(args.nodes)
    test_s = 2 * args.run_s
    report: dict[str, Any] = {"nodes": args.nodes, "rails": 2, "rounds": rounds, "test_s": test_s,
                              "limit_s": 1.5 * rounds * test_s}
    sweep_stale()
    with Lab(nodes=args.nodes, rails=2, installer=INSTALLER) as lab, tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        install(lab, args.run_s)
        site = lab.write_inventory(work / "site.yaml", profile=PROFILE)
        report["sweeps"] = [run_sweep(site, work / f"sweep-n{workers}", workers) for workers in ("2", "0")]
        for sweep in report["sweeps"]:
            sweep["per_round_s"] = round(sweep["sweep_s"] / rounds, 2)
        for a, b, rail in BAD_PAIRS:
            inject_bad_pair(lab, a, b, rail)
        failing = run_sweep(site, work / "with-bad-pairs", "2")
        report["with_bad_pairs"] = {key: failing[key] for key in ("failed_items", "wall_s", "overlaps")}
        report["last_failed"] = run_sweep(site, work / "lf", "2", "--lf")
        report["rerun_failed_pairs"] = run_sweep(site, work / "rerun", "2", f"--rerun-failed-pairs={failing['results']}")
    expected_items = sorted(f"{a}->{b}" for a, b, _ in BAD_PAIRS)
    report["checks"] = {
        "sweeps_within_limit": all(s["sweep_s"] <= report["limit_s"] for s in report["sweeps"]),
        "estimate_and_one_progress_line_per_round": all(
            len(s["estimate_lines"]) == 2 and len(s["progress_lines"]) == rounds for s in report["sweeps"]),
        "no_overlaps": all(s["overlaps"] == 0 for s in [*report["sweeps"], report["last_failed"], report["rerun_failed_pairs"]]),
        "bad_pairs_fail": report["with_bad_pairs"]["failed_items"] == expected_items,
        "lf_measures_exactly_the_bad_node_pairs": report["last_failed"]["node_pair_items"] == expected_items,
        "rerun_measures_exactly_the_bad_nic_pairs": report["rerun_failed_pairs"]["distinct_nic_pairs"] == len(BAD_PAIRS)
        and report["rerun_failed_pairs"]["nic_pairs_measured"] == len(BAD_PAIRS),
    }
    emit(report, args.json)
    return 0 if all(report["checks"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
