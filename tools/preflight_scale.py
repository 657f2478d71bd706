"""How long `gpufabric preflight` takes to answer for many nodes: against the many-node loopback target (one SSH
server answering for every node name, commands run for real in bash; `pytest_gpufabric.lab.loopback_target`).

    python -m tools.preflight_scale 64 256 1024 [--workers 256] [--rails 8]

For each size: the target comes up with a synthesized mi300x-thor2 inventory, then `gpufabric preflight` runs in a
process of its own; printed are its wall time, the probe's own time (its summary line), the controller's CPU
(user + system of that process), the target's CPU (the SSH server and every command it ran, read apart), the
missing-prerequisite lines and the load average before and after. The stand-ins of the target are not GPU builds,
so the GPU perftest options and the GPU tools are reported missing: the probe of every node is the full one."""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_gpufabric.lab.loopback_target import LoopbackTarget

SUMMARY = re.compile(r"^preflight: (\d+) node\(s\) probed in ([0-9.]+) s")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(nodes: int, rails: int, workers: int, processes: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="gpufabric-preflight-scale-") as folder, LoopbackTarget(nodes, rails) as target:
        site = target.write_inventory(Path(folder) / "site.yaml")
        load_before = os.getloadavg()[0]
        cpu_before, started = _children_cpu(), time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pytest_gpufabric.cli", "preflight", f"--cluster={site}",
                               f"--workers={workers}", f"--processes={processes}"], capture_output=True, text=True,
                              timeout=1800, check=False)
        wall, cpu = time.monotonic() - started, _children_cpu() - cpu_before
        load_after = os.getloadavg()[0]
    lines = proc.stdout.splitlines()
    summary = next((SUMMARY.match(line) for line in reversed(lines) if SUMMARY.match(line)), None)
    if proc.returncode not in (0, 1) or summary is None:
        raise SystemExit(f"preflight of {nodes} nodes failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    missing = [line for line in lines[: lines.index("")] if line] if "" in lines else []
    return {"nodes": int(summary.group(1)), "wall_s": wall, "probe_s": float(summary.group(2)), "controller_cpu_s": cpu,
            "target_cpu_s": target.server_cpu_s, "missing": missing, "load": (load_before, load_after)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="+", type=int, help="node counts")
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("--workers", type=int, default=256, help="gpufabric preflight --workers (default 256)")
    parser.add_argument("--processes", type=int, nargs="+", default=[1], help="gpufabric preflight --processes, each in turn")
    args = parser.parse_args()
    print("| nodes | workers | processes | preflight wall s | probe s | controller CPU s | CPU ms a node | target CPU s | "
          "missing lines | load avg before/after |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        for processes in args.processes:
            row = measure(size, args.rails, args.workers, processes)
            before, after = row["load"]  # type: ignore[misc]
            cpu = float(row["controller_cpu_s"])  # type: ignore[arg-type]
            print(f"| {row['nodes']} | {args.workers} | {processes} | {row['wall_s']:.1f} | {row['probe_s']:.1f} | {cpu:.1f} | "
                  f"{cpu / size * 1000:.1f} | {row['target_cpu_s']:.1f} | {len(row['missing'])} | {before:.1f} / {after:.1f} |",  # type: ignore[arg-type]
                  flush=True)
    print("missing lines of the last run (the target's stand-ins are no GPU builds):")
    for line in row["missing"]:  # type: ignore[attr-defined]
        print(f"    {line}")


if __name__ == "__main__":
    main()
