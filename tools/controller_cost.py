"""What the controller spends per test on many nodes: pytest runs against the many-node loopback target.

One SSH server on this machine answers for N node names, N x R NICs (``pytest_gpufabric.lab.loopback_target``,
stand-ins answering at once), so every command of a 1,024-node round is really issued, sent over SSH and read.
For each ``-n K`` it runs the check twice: ``--collect-only`` and for real, with the same options, and reports:

- ``cpu_s``: user + system CPU of the controller's processes: the pytest process and everything it started and
  waited for (its xdist workers and their children), from ``os.wait4`` on the pytest process;
- ``collect_cpu_s``: the same for the ``--collect-only`` run, and ``beyond_collection_cpu_s`` the difference,
  per NIC pair (PERF-002) or per item (the mesh checks);
- ``target_cpu_s``: what the SSH server and its commands spent meanwhile, read from its own ``/proc`` counters
  (utime, stime and its reaped children's) before and after the run. The server is a child of this tool, not of
  pytest, so none of its CPU is in ``cpu_s``;
- ``wall_s`` of the run, ``sweep_s`` (first to last NIC-pair measurement of the schedule log), the progress lines.

    .venv/bin/python -m tools.controller_cost --nodes 1024 --rails 8 --check PERF-002 --pair-policy rounds:1 \
        --workers 0 2 [--json OUT.json]
    .venv/bin/python -m tools.controller_cost --nodes 256 --rails 8 --check NET-001 --workers 2 [--pair-policy all --select "node0001 and node0002"]
    .venv/bin/python -m tools.controller_cost --nodes 256 --rails 8 --workers 0 --more-rounds rounds:2

``--more-rounds``: each ``-n`` again with more rounds; the difference is what a round costs in a sweep, beyond the
run's fixed work (start-up, connections, the plan of the sign-off and the verdict line, which grow with the site).
``--site-policy rounds:1``: the site declares its own test plan (by default it declares none: every node pair is
required, 6 million planned items at 1,024 nodes, and the run's sign-off work is then the largest part of its cost).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from pytest_gpufabric.exclusive import ScheduleLog
from pytest_gpufabric.lab.loopback_target import LoopbackTarget
from pytest_gpufabric.reporting.acceptance.load import read_records
from tools.figures_json import emit

REPO = Path(__file__).resolve().parents[1]
TESTS = {
    "PERF-002": "suites/acceptance/test_perftest.py::test_nic_switch_nic_bandwidth",
    "NET-001": "suites/acceptance/test_connectivity.py::test_ping_mesh",
    "NET-002": "suites/acceptance/test_connectivity.py::test_jumbo_frames",
    "HOST-008": "suites/acceptance/test_connectivity.py::test_passwordless_ssh",
}
RUN_TIMEOUT_S = 3600
# The target runs every node's shells on this machine's cores: the first round of 256 nodes starts ~1,000 shells at
# once on 2 cores, and a node pair's commands then took 12-17 s of the 21 s bound a real node pair needs 7 s of
# (3 x 7 s): 2-5 of 256 items errored "did not end within its time limit". The bound is for real nodes; here it
# is widened so that the figures are of the controller's work, not of the target's queue.
BOUND_FACTOR_ON_TARGET = 20
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> float:
    """utime + stime of ``pid`` and of its children it has reaped (``/proc/PID/stat`` fields 14-17)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / CLOCK_TICKS


def run_measured(argv: list[str], target_pid: int) -> dict[str, Any]:
    """Run ``argv`` (pytest) to its end; its wall time, its process tree's CPU, and the target's CPU meanwhile."""
    target_before = process_cpu_s(target_pid)
    load = os.getloadavg()[0]
    started = time.monotonic()
    with tempfile.TemporaryFile() as output:
        proc = subprocess.Popen(argv, cwd=REPO, stdout=output, stderr=subprocess.STDOUT)
        deadline = started + RUN_TIMEOUT_S
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        output.seek(0)
        text = output.read().decode(errors="replace")
    return {"returncode": proc.returncode, "wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "target_cpu_s": round(process_cpu_s(target_pid) - target_before, 2), "load_average_at_start": load,
            "maxrss_mb": round(usage.ru_maxrss / 1024, 1), "output": text}


def measure(site: Path, work: Path, check: str, policy: str, workers: str, target_pid: int,
            profile: Path | None = None, select: str | None = None) -> dict[str, Any]:
    """The collect-only run and the real run of ``check`` with ``-n workers``; ``profile``: a folder where the real
    run's processes are sampled by py-spy (every thread, xdist workers too; ``profile-nK-POLICY.txt``: collapsed stacks)."""
    tag = f"n{workers}-{policy.replace(':', '')}"
    results, log = work / f"results-{tag}", work / f"schedule-{tag}.jsonl"
    options = [TESTS[check], f"--cluster={site}", f"--pair-policy={policy}", "-q", "-p", "no:cacheprovider", "-n", workers,
               f"--bound-factor={BOUND_FACTOR_ON_TARGET}", *(["-k", select] if select else [])]
    base = [sys.executable, "-m", "pytest", *options]
    collect = run_measured([*base, "--collect-only"], target_pid)
    live = base
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
        live = [str(Path(sys.executable).with_name("py-spy")), "record", "--subprocesses", "--format", "raw", "--rate", "200",
                "--nonblocking", "-o", str(profile / f"profile-{tag}.txt"), "--", *base]
    run = run_measured([*live, f"--gpufabric-results={results}", f"--schedule-log={log}"], target_pid)
    if run["returncode"] not in (0, 1):
        raise SystemExit(f"pytest exit {run['returncode']}:\n{run['output'][-4000:]}")
    records = read_records(results / "results.jsonl")[0]
    spans = ScheduleLog(log).read() if log.exists() else []
    nic_pairs = sum(len(record.get("pairs") or ()) for record in records)
    beyond = run["cpu_s"] - collect["cpu_s"]
    lines = run["output"].splitlines()
    return {
        "workers": workers, "pair_policy": policy, "items": len(records), "nic_pairs": nic_pairs,
        "outcomes": {outcome: sum(r["outcome"] == outcome for r in records) for outcome in {r["outcome"] for r in records}},
        "not_passed": [f"{r['item']}: {str(r.get('message') or '').strip()[:600]}"
                       for r in records if r["outcome"] != "passed"][:5],
        "wall_s": run["wall_s"], "cpu_s": run["cpu_s"], "collect_cpu_s": collect["cpu_s"],
        "collect_wall_s": collect["wall_s"], "beyond_collection_cpu_s": round(beyond, 2),
        "per_nic_pair_ms": round(1000 * beyond / nic_pairs, 3) if nic_pairs else None,
        "per_item_ms": round(1000 * beyond / len(records), 3) if records else None,
        "target_cpu_s": run["target_cpu_s"], "maxrss_mb": run["maxrss_mb"],
        "sweep_s": round(max(s.end for s in spans) - min(s.start for s in spans), 2) if spans else None,
        "measured_by_process": dict(sorted(Counter(s.worker for s in spans).items())),  # schedule-log spans each
        "load_average_at_start": run["load_average_at_start"],
        "progress_lines": [line for line in lines if " mesh" in line or " round " in line or " sweep" in line][:12],
        "cpu_by_component": [line for line in lines if line.startswith("CPU ")],  # with -p tools.cpu_by_component
        "summary": lines[-1] if lines else "",
    }


def added_rounds(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """What the rounds of ``more`` beyond those of ``base`` cost the controller, per NIC pair they measured."""
    pairs = more["nic_pairs"] - base["nic_pairs"]
    cpu = more["cpu_s"] - base["cpu_s"]
    return {"workers": base["workers"], "from": base["pair_policy"], "to": more["pair_policy"], "nic_pairs": pairs,
            "cpu_s": round(cpu, 2), "per_nic_pair_ms": round(1000 * cpu / pairs, 3) if pairs > 0 else None,
            "wall_s": round(more["wall_s"] - base["wall_s"], 2),
            "load_average_at_start": [base["load_average_at_start"], more["load_average_at_start"]]}


def declare_test_plan(site: Path, policy: str) -> None:
    """Give site.yaml a test plan of its own: the node pairs ``policy`` chooses are the ones the pair checks must cover."""
    document = yaml.safe_load(site.read_text(encoding="utf-8"))
    document["test_plan"] = {"pair_policy": policy}
    site.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1024)
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("--check", choices=sorted(TESTS), default="PERF-002")
    parser.add_argument("--pair-policy", default="rounds:1")
    parser.add_argument("--workers", nargs="+", default=["0", "2"])
    parser.add_argument("--more-rounds", metavar="POLICY",
                        help="also run each -n with this policy (e.g. rounds:2) and report what the rounds it adds cost "
                             "per NIC pair (connections, start-up and the run's own sign-off work then cancel out)")
    parser.add_argument("--site-policy", metavar="POLICY",
                        help="the site's own test plan (test_plan.pair_policy in site.yaml; default none: every node pair "
                             "is required). The sign-off plan, written at the first record and assessed for the verdict "
                             "line, grows with the pairs it requires: at 1,024 nodes with every pair, 6 million items")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--select", metavar="EXPR", help="pytest -k: judge only these items (a mesh still probes every pair)")
    parser.add_argument("--profile", type=Path, help="sample each real run's processes with py-spy (pip install py-spy) into this folder")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"nodes": args.nodes, "rails": args.rails, "check": args.check,
                              "pair_policy": args.pair_policy, "runs": []}
    with LoopbackTarget(args.nodes, args.rails) as target, tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        site = target.write_inventory(work / "site.yaml")
        if args.site_policy:
            declare_test_plan(site, args.site_policy)
            report["site_policy"] = args.site_policy
        assert target.pid is not None
        report["target_start_s"] = round(target.start_s or 0.0, 2)
        for workers in args.workers:
            base = measure(site, work, args.check, args.pair_policy, workers, target.pid, args.profile, args.select)
            report["runs"].append(base)
            if args.more_rounds:
                more = measure(site, work, args.check, args.more_rounds, workers, target.pid, args.profile, args.select)
                report["runs"].append(more)
                report.setdefault("added_rounds", []).append(added_rounds(base, more))
    report["target_cpu_s_total"] = target.server_cpu_s
    emit(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
