"""The sign-off plan's cost at scale: build it, write and read ``plan.json``, and assess a run against it, for a
SYNTHESIZED site of N nodes x R rails with the site's own pair policy (default ``all``).

    python -m tools.plan_scale 256 1024 [--rails 8] [--policy rounds:1]

Each node count runs in a process of its own; one line each: items required, CPU seconds of each phase (the
verdict line, the verdict per node and the missing items per check: what the terminal and the report read of
it), ``plan.json``'s size and the process's peak resident memory. The run assessed recorded nothing (every item
missing: the most findings a verdict can hold, as after a run of a few rounds on a site planned for all pairs).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from pytest_gpufabric.lab.synthetic_site import synthesize
from pytest_gpufabric.signoff.plan import build_plan, read_plan, site_pair_policy, write_plan
from pytest_gpufabric.signoff.verdict import assess
from pytest_gpufabric.startup import prepare_run

REPO = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(nodes: int, rails: int, policy: str | None) -> dict[str, float | int]:
    """The figures of one node count (in this process)."""
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site.yaml"
        data = synthesize(nodes, rails)
        if policy:
            data.setdefault("test_plan", {})["pair_policy"] = policy
        site.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        setup = prepare_run(site, REPO / "thresholds")
        figures: dict[str, float | int] = {"nodes": nodes, "rails": rails}
        started = _cpu()
        plan = build_plan(setup.inventory, setup.profiles, setup.catalog, site_pair_policy(setup.inventory, site))
        figures["required"], figures["build_cpu_s"] = plan.required_count, _cpu() - started
        path = Path(folder) / "plan.json"
        started = _cpu()
        write_plan(plan, path)
        figures["write_cpu_s"], figures["plan_json_mb"] = _cpu() - started, path.stat().st_size / 1e6
        del plan
        started = _cpu()
        read = read_plan(path)
        figures["read_cpu_s"] = _cpu() - started
        assert read is not None
        started = _cpu()
        verdict = assess(read, [], [], None, True)
        figures["assess_cpu_s"] = _cpu() - started
        figures["findings"] = len(verdict.findings)
        started = _cpu()
        verdict.line()
        verdict.node_verdicts([*read.nodes, *read.switches])
        verdict.missing_by_check()
        figures["report_cpu_s"] = _cpu() - started
        figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", type=int, nargs="+")
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("--policy", help="the site's pair policy (default: the synthesized site's, all)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: one count, JSON out
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.nodes[0], args.rails, args.policy)))
        return 0
    print("load average " + " ".join(f"{value:.1f}" for value in os.getloadavg()))
    for nodes in args.nodes:
        child = [sys.executable, "-m", "tools.plan_scale", str(nodes), "--rails", str(args.rails), "--one"]
        if args.policy:
            child += ["--policy", args.policy]
        done = subprocess.run(child, cwd=REPO, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"{nodes} nodes: failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            return 1
        figures = json.loads(done.stdout)
        print(f"{figures['nodes']:>6} nodes x {figures['rails']}: {figures['required']:>10,} items required, build "
              f"{figures['build_cpu_s']:.2f} CPU-s, plan.json {figures['plan_json_mb']:.1f} MB (write "
              f"{figures['write_cpu_s']:.2f}, read {figures['read_cpu_s']:.2f} CPU-s), assess {figures['assess_cpu_s']:.2f} "
              f"CPU-s ({figures['findings']:,} findings; verdict line, per node and missing per check "
              f"{figures['report_cpu_s']:.2f} CPU-s), peak {figures['peak_rss_mib']:,} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
