"""What ``parse_perftest`` costs per output, on real captures of each kind (fixtures/outputs/perftest/), for this
code and for the code of a git revision, timed alternately in fresh processes: ratios in one run, the load
average beside each round.

    .venv/bin/python -m tools.perftest_parse_cost --base main [--rounds 3] [--json FILE]

The revision's ``pytest_gpufabric`` is extracted with ``git archive`` into a temporary folder and imported from
there; each process prints the minimum of 7 repeats of 200 parses per capture (microseconds per output).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CAPTURES_DIR = REPO / "fixtures" / "outputs" / "perftest"
CAPTURES = {
    "bw-a-gbits-rocm-bidirectional": "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt",  # the pair sweep's output
    "bw-a-mbsec": "rxe-ib_write_bw-all-sizes-mbsec.txt",
    "bw-a-rocm-both-sides": "mi355x-ionic-ib_write_bw-rocm-both-sides-mibsec.txt",
    "lat-a": "rxe-ib_write_lat-all-sizes.txt",
    "failed-status-12": "s0-5.1-faq2-ib_write_bw-failed-status-12.txt",
    "failed-no-server": "rxe-ib_write_bw-no-server.txt",
}
TIMER = """
import json, sys, timeit
sys.path.insert(0, sys.argv[1])
from pytest_gpufabric.parsers.perftest import parse_perftest
figures = {}
for case, path in json.loads(sys.argv[2]).items():
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    figures[case] = min(timeit.repeat(lambda: parse_perftest(text), number=200, repeat=7)) / 200 * 1e6
print(json.dumps(figures))
"""


def time_code(package_root: Path) -> dict[str, float]:
    """Microseconds per output of each capture, parsed by the ``pytest_gpufabric`` under ``package_root``."""
    paths = {case: str(CAPTURES_DIR / name) for case, name in CAPTURES.items()}
    done = subprocess.run([sys.executable, "-c", TIMER, str(package_root), json.dumps(paths)], cwd=package_root,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def extract(revision: str, folder: Path) -> None:
    """The revision's ``pytest_gpufabric`` package into ``folder``."""
    archive = subprocess.run(["git", "archive", revision, "pytest_gpufabric"], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="git revision to compare with (default: main)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    rounds = []
    with tempfile.TemporaryDirectory(prefix="perftest-parse-cost-") as base_root:
        try:
            extract(args.base, Path(base_root))
        except subprocess.CalledProcessError as exc:
            print(f"error: cannot extract {args.base!r}: {exc.stderr.decode(errors='replace').strip()}", file=sys.stderr)
            return 2
        for _ in range(args.rounds):
            load = os.getloadavg()[0]
            rounds.append({"load_average": round(load, 2), "base_us": time_code(Path(base_root)), "this_us": time_code(REPO)})
    summary = {}
    for case in CAPTURES:
        base = statistics.median(r["base_us"][case] for r in rounds)
        this = statistics.median(r["this_us"][case] for r in rounds)
        ratios = [r["base_us"][case] / r["this_us"][case] for r in rounds]
        summary[case] = {"base_us": round(base, 1), "this_us": round(this, 1), "ratio_median": round(statistics.median(ratios), 2),
                         "ratio_min": round(min(ratios), 2), "ratio_max": round(max(ratios), 2)}
        print(f"{case:32s} {args.base}: {base:7.1f} us  this: {this:7.1f} us  x{statistics.median(ratios):.2f} "
              f"({min(ratios):.2f}-{max(ratios):.2f})")
    print("load average per round: " + ", ".join(str(r["load_average"]) for r in rounds))
    if args.json:
        args.json.write_text(json.dumps({"base": args.base, "rounds": rounds, "summary": summary}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
