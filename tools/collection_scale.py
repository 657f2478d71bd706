"""Collection at scale: ``pytest suites/acceptance --collect-only`` on synthesized inventories (N nodes x 8 rails,
mi300x-thor2), each in a fresh process: items, wall and CPU seconds, peak RSS, and the cost per item with
pytest's start-up (the same command on an empty test directory) taken out. Also checks that every same-rail
NIC pair of the inventory is covered by a node-pair item of every pair check (``all`` policy).

    .venv/bin/python -m tools.collection_scale 16 32 64 256 1024@rounds:8 [--policy all] [--json OUT.json]
    .venv/bin/python -m tools.collection_scale 1000@rounds:1 5000@rounds:1 20000@rounds:1

``N@POLICY`` gives one inventory its own ``--pair-policy`` (the others take ``--policy``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from tools.synth_inventory import synthesize

REPO = Path(__file__).resolve().parents[1]
FILE_COUNT = re.compile(r"^(\S+\.py): (\d+)$")
ITEM_ID = re.compile(r"::(\w+)\[(node\d+)->(node\d+)\]$")


def _measure(args: list[str], cwd: Path) -> tuple[str, float, float, int]:
    """Run pytest in a fresh process: (output, wall s, CPU s of that process, its peak RSS in bytes)."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)  # reaps the process and gives its own resource usage
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    return out, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def startup(folder: Path, site: Path) -> tuple[float, float]:
    """Wall and CPU seconds of pytest with the plugin and the inventory on a directory without tests."""
    empty = folder / "empty"
    empty.mkdir(exist_ok=True)
    _, wall, cpu, _ = _measure([str(empty), f"--cluster={site}", f"--rootdir={REPO}", "--collect-only", "-qq",
                                "-p", "no:cacheprovider", f"--thresholds-dir={REPO / 'thresholds'}"], REPO)
    return wall, cpu


def collect(site: Path, policy: str, max_items: int) -> dict[str, Any]:
    out, wall, cpu, rss = _measure(["suites/acceptance", f"--cluster={site}", "--collect-only", "-q",
                                    "-p", "no:cacheprovider", f"--pair-policy={policy}", f"--max-items={max_items}"], REPO)
    ids = [line for line in out.splitlines() if "::" in line]
    if not ids:
        raise SystemExit(f"no items collected:\n{out[-3000:]}")
    return {"items": len(ids), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_rss_mb": round(rss / 2**20),
            "ids": ids}


def covered_nic_pairs(ids: list[str], rails: int) -> tuple[int, int]:
    """(pair tests, same-rail NIC pairs covered by the node-pair items of each of them, the fewest of any):
    each node-pair item measures every rail of its two nodes."""
    pairs: dict[str, set[frozenset[str]]] = {}
    for line in ids:
        match = ITEM_ID.search(line)
        if match and match.group(2) != match.group(3):
            pairs.setdefault(match.group(1), set()).add(frozenset(match.group(2, 3)))
    return len(pairs), min((len(found) for found in pairs.values()), default=0) * rails


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", nargs="+", help="node counts, each optionally N@POLICY")
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("--policy", default="all")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--max-items", type=int, default=100_000_000, help="passed to pytest: what is measured collects")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for spec in args.nodes:
            count_text, _, policy = spec.partition("@")
            count, policy = int(count_text), policy or args.policy
            site = Path(folder) / f"site-{count}.yaml"
            site.write_text(yaml.safe_dump(synthesize(count, args.rails), sort_keys=False), encoding="utf-8")
            start_wall, start_cpu = startup(Path(folder), site)
            row = collect(site, policy, args.max_items)
            ids = row.pop("ids")
            all_pairs = count * (count - 1) // 2 * args.rails
            pair_tests, covered = covered_nic_pairs(ids, args.rails)
            row.update(nodes=count, policy=policy, startup_wall_s=round(start_wall, 1), startup_cpu_s=round(start_cpu, 1),
                       cpu_us_per_item=round(1e6 * (row["cpu_s"] - start_cpu) / row["items"], 1),
                       pair_tests=pair_tests, nic_pairs_covered=covered, nic_pairs_same_rail=all_pairs)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print("\n| nodes | policy | items | collection wall s | CPU s | start-up CPU s | CPU us/item | peak RSS MB | same-rail NIC pairs covered by each pair test |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['nodes']} | {row['policy']} | {row['items']:,} | {row['wall_s']} | {row['cpu_s']} | {row['startup_cpu_s']} "
              f"| {row['cpu_us_per_item']} | {row['peak_rss_mb']} | {row['nic_pairs_covered']:,} / {row['nic_pairs_same_rail']:,} "
              f"({row['pair_tests']} tests) |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
