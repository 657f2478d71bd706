"""The demo replay's pair results reduced to what must never change: per NIC pair (or node pair) and check,
the outcome and every judged value, plus the fault-localization suspects.

Reads both shapes of ``results.jsonl``: one record per pair item, and node-pair records whose ``pairs``
list holds one entry per NIC pair. Regenerate the committed baseline only when a change is meant to alter
the demo's verdicts:

    .venv/bin/python tests/e2e/pair_baseline.py tests/e2e/data/demo_pair_baseline.json
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_gpufabric.reporting.acceptance.load import read_records

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
PAIR_SUITES = ("suites/acceptance/test_connectivity.py", "suites/acceptance/test_perftest.py", "suites/acceptance/test_osu.py")
MEASUREMENT_FIELDS = ("name", "where", "measured", "expected", "unit", "source", "passed")
SUSPECT_PREFIX = "suspect "


def replay_pairs(out: Path, *extra: str) -> tuple[list[dict[str, Any]], str]:
    """Replay the demo's pair suites; (results records, terminal output)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *PAIR_SUITES, f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}",
         f"--gpufabric-results={out}", "-p", "no:cacheprovider", "-q", *extra],
        cwd=REPO, capture_output=True, text=True, timeout=900, check=False,
    )
    if proc.returncode != 1:  # 1: completed, with the demo's injected faults
        raise AssertionError(f"demo replay exit {proc.returncode}\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    records = read_records(out / "results.jsonl")[0]
    return records, proc.stdout


def _measurements(values: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value.get(key) for key in MEASUREMENT_FIELDS} for value in values]


def pair_verdicts(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``"CHECK pair"`` -> outcome and judged values, for every pair of every pair record (either shape)."""
    verdicts: dict[str, dict[str, Any]] = {}
    for record in records:
        for pair in record.get("pairs") or [record]:
            target = pair.get("pair") or pair.get("item")
            if not target or "->" not in str(target):
                continue
            verdicts[f"{record['check_id']} {target}"] = {
                "outcome": pair["outcome"], "measurements": _measurements(pair.get("measurements", []))}
    return dict(sorted(verdicts.items()))


def suspects(terminal: str) -> list[str]:
    """The fault-localization lines of a run's terminal output, in their order."""
    return [line for line in terminal.splitlines() if line.startswith(SUSPECT_PREFIX)]


def baseline(records: list[dict[str, Any]], terminal: str) -> dict[str, Any]:
    return {"pairs": pair_verdicts(records), "suspects": suspects(terminal)}


def render(data: dict[str, Any]) -> str:
    """JSON with one line per pair (reviewable diffs)."""
    pairs = ",\n".join(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)}" for key, value in data["pairs"].items())
    return f'{{"suspects": {json.dumps(data["suspects"], indent=1)},\n "pairs": {{\n{pairs}\n}}}}\n'


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: pair_baseline.py OUTPUT.json", file=sys.stderr)
        return 2
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        records, terminal = replay_pairs(Path(folder), "-n", "0")
    Path(argv[0]).write_text(render(baseline(records, terminal)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
