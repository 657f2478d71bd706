"""Write a SYNTHESIZED results directory (results.jsonl + run.json) of a large cluster, to size the report.

    python -m tools.synthesize_results --nodes 256 --rails 8 -o /tmp/synth-256

Every node and NIC check of the profile gets one item per node or NIC whose values are the profile's own
(so they pass), the pair checks PERF-002 (bandwidth) and PERF-007 (latency) get one node-pair record per
node pair with a ``pairs`` list (one entry per rail, both directions measured), and a few faults are
injected: a bad cable (one NIC pair slow on one rail), a bad NIC (slow with every partner), a node with
old NIC firmware and a node whose driver check could not measure. Nothing here is a measurement.
"""

from __future__ import annotations

import argparse
import itertools
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pytest_gpufabric import __version__
from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.expectations import Expectation, Profile, load_profile
from pytest_gpufabric.reporting.acceptance.load import cycle_collector_paused
from pytest_gpufabric.reporting.acceptance.run_plugin import profile_info
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, now_text, write_run_info
from pytest_gpufabric.shapes import MachineShape

PROFILE = "mi300x-thor2"
SHAPE = MachineShape(8, "MI300X", "xgmi", 400)  # every synthesized node: 8 MI300X on XGMI, 400G NICs
THRESHOLDS = Path(__file__).resolve().parents[1] / "thresholds"
PAIR_METRICS = {"PERF-002": "average_bw_gbps", "PERF-007": "typical_latency_us"}
HEALTHY = {"PERF-002": 392.0, "PERF-007": 3.05}
SLOW = {"PERF-002": 180.0, "PERF-007": 9.5}


def node_name(index: int) -> str:
    return f"node{index + 1:03d}"


def _measurement(e: Expectation, where: str, measured: Any) -> dict[str, Any]:
    return {"check": e.check, "name": e.name, "where": where, "measured": measured, "expected": e.describe(),
            "op": e.op, "threshold": e.value, "unit": e.unit, "source": e.source, "passed": e.holds_for(measured),
            "detail": "synthesized"}


def _record(check: str, title: str, test: str, item: str, outcome: str, measurements: list[dict[str, Any]],
            hint: str | None, message: str | None = None, **extra: Any) -> dict[str, Any]:
    decisive = next((m for m in measurements if not m["passed"]), measurements[-1] if measurements else None)
    return {"schema": 1, "node_id": f"suites/acceptance/synth.py::{test}[{item}]", "check_id": check, "title": title,
            "item": item, "outcome": outcome, "measured": decisive["measured"] if decisive else None,
            "expected": decisive["expected"] if decisive else None, "unit": decisive["unit"] if decisive else None,
            "source": decisive["source"] if decisive else None, "hint": hint if outcome != "passed" else None,
            "message": message, "measurements": measurements, "commands": [], **extra}


def _config_records(profile: Profile, nodes: list[str], rails: int, faults: dict[str, str]) -> Iterator[dict[str, Any]]:
    catalog = load_catalog()
    for spec in catalog:
        expectations = profile.expectations.get(spec.id)
        if spec.scope not in ("node", "nic") or not expectations or spec.id in profile.not_applicable:
            continue
        for node in nodes:
            targets = [node] if spec.scope == "node" else [f"{node}/bnxt_re{r}" for r in range(rails)]
            for target in targets:
                if faults.get("unmeasured") == target and spec.id == "DRV-001":
                    yield _record(spec.id, spec.title, "test_check", target, "error", [], spec.hint,
                                  f"MeasurementMissing: {target}: modinfo bnxt_en printed nothing")
                    continue
                shaped = [found for e in expectations.values() if (found := e.for_shape(SHAPE)) is not None]
                values = [_measurement(e, target, e.value) for e in shaped]
                if spec.id == "DRV-004" and target.startswith(faults.get("old_firmware", "-") + "/"):
                    values = [_measurement(e, target, "230.0.100.0") for e in shaped]
                outcome = "passed" if all(m["passed"] for m in values) else "failed"
                yield _record(spec.id, spec.title, "test_check", target, outcome, values, spec.hint)


def _pair_value(check: str, a: str, b: str, rail: int, faults: dict[str, str], rng: random.Random) -> float:
    bad_nic = faults["bad_nic"]
    slow = f"{a}/bnxt_re{rail}" == bad_nic or f"{b}/bnxt_re{rail}" == bad_nic or (a, b, rail) == faults["bad_cable"]
    jitter = rng.uniform(-0.01, 0.01) * HEALTHY[check]
    return round((SLOW[check] if slow else HEALTHY[check]) + jitter, 2)


def _pair_records(profile: Profile, nodes: list[str], rails: int, faults: dict[str, Any]) -> Iterator[dict[str, Any]]:
    catalog = load_catalog()
    rng = random.Random(7)
    for check, metric in PAIR_METRICS.items():
        spec, e = catalog.get(check), profile.get(check, metric, SHAPE)
        for a, b in itertools.combinations(nodes, 2):
            entries = []
            for rail in range(rails):
                pair = f"{a}/bnxt_re{rail}->{b}/bnxt_re{rail}"
                both = [_measurement(e, f"{x}/bnxt_re{rail}->{y}/bnxt_re{rail}", _pair_value(check, a, b, rail, faults, rng))
                        for x, y in ((a, b), (b, a))]
                worst = both[0] if not both[0]["passed"] else both[1]
                outcome = "passed" if all(m["passed"] for m in both) else "failed"
                entries.append({"pair": pair, "rail": rail, "node_a": a, "nic_a": f"bnxt_re{rail}", "node_b": b,
                                "nic_b": f"bnxt_re{rail}", "outcome": outcome, "measured": worst["measured"],
                                "expected": e.describe(), "unit": e.unit, "source": e.source,
                                "hint": None if outcome == "passed" else spec.hint,
                                "message": None if outcome == "passed" else f"rail {rail}: {pair} {worst['measured']} {e.unit}",
                                "measurements": both})
            failed = [m for entry in entries for m in entry["measurements"] if not m["passed"]]
            yield _record(check, spec.title, "test_pair", f"{a}->{b}", "failed" if failed else "passed",
                          failed or entries[-1]["measurements"], spec.hint, scope="node_pair", pairs=entries)


@dataclass(frozen=True)
class Synthesized:
    """The results file written and how many of its records have each outcome."""

    path: Path
    outcomes: Counter[str]


def synthesize(out: Path, n_nodes: int, rails: int) -> Synthesized:
    profile = load_profile(THRESHOLDS, PROFILE)
    nodes = [node_name(i) for i in range(n_nodes)]
    faults = {"bad_cable": (nodes[0], nodes[2], 2), "bad_nic": f"{nodes[-1]}/bnxt_re5",
              "old_firmware": nodes[min(3, n_nodes - 1)], "unmeasured": nodes[min(4, n_nodes - 1)]}
    out.mkdir(parents=True, exist_ok=True)
    info = RunInfo(site=f"synthesized-{n_nodes}x{rails}", profile=PROFILE,
                   profiles=(profile_info(profile),),
                   run_id="synthesized", plugin_version=__version__, started=now_text(), finished=now_text(),
                   mode="SYNTHESIZED results (tools/synthesize_results.py), not a measurement",
                   rails={f"{n}/bnxt_re{r}": r for n in nodes for r in range(rails)})
    write_run_info(out, info)
    path = out / "results.jsonl"
    outcomes: Counter[str] = Counter()
    with cycle_collector_paused():
        records = itertools.chain(_config_records(profile, nodes, rails, faults), _pair_records(profile, nodes, rails, faults))
        with path.open("wb") as stream:
            for record in sorted(records, key=lambda r: r["node_id"]):
                outcomes[record["outcome"]] += 1
                stream.write(orjson.dumps(record, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE))
    return Synthesized(path, outcomes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=256)
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("-o", "--output", required=True, type=Path)
    args = parser.parse_args()
    print(synthesize(args.output, args.nodes, args.rails).path)


if __name__ == "__main__":
    main()
