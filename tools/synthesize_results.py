"""Write a SYNTHESIZED results directory (results.jsonl + run.json) of a large cluster, to size and test the report.

    python -m tools.synthesize_results --nodes 256 --rails 8 -o /tmp/synth-256 [--faults bad-cable,bad-nic,slow-nic]
    python -m tools.synthesize_results --nodes 1024 --rails 8 --rounds 16 -o /tmp/synth-1024   # a sample of the pairs

Every node and NIC check of the profile gets one item per node or NIC whose values are the profile's own (so
they pass), and every pair check of the profile (node-pair scope: HOST-008, NET-001, PERF-006, OSU-001; NIC-pair
checks measured per node pair: NET-002, PERF-002..005, PERF-007, PERF-008) one node-pair record per node pair,
shaped as the suite writes them (a ``pairs`` list with one entry per rail for the NIC-pair checks, both
directions measured). The fabric is rail-optimized: each rail of 32 nodes (a scalable unit) on its own leaf.
Healthy values: 775 Gb/s for a bidirectional perftest (the S0 2.8.2 capture: 774.99) and 2.9 us of latency,
each with +-1 % of noise; other values are the profile's own. Faults (``--faults``, all by default):

- ``bad-cable``: one NIC pair (node 1 and node 3 on rail 2) at 180 Gb/s and 9.5 us: it fails;
- ``bad-nic``: the last node's NIC on rail 5 at 180 Gb/s and 9.5 us with every partner: it fails;
- ``slow-nic``: the NIC of node 8 on rail 6 at 85 % of its peers with every partner: it passes its thresholds
  and is an outlier;
- ``old-firmware``: node 4's NIC firmware is older than the profile's; ``unmeasured``: node 5's driver check
  could not measure.

``--rounds K`` keeps the node pairs of the first K rounds of the circle method (as ``--pair-policy=rounds:K``):
a 1,024-node run of every pair check is tens of gigabytes, a sample of it shows the views at that size (the
faults' pairs are kept).

Nothing here is a measurement.
"""

from __future__ import annotations

import argparse
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pytest_gpufabric import __version__
from pytest_gpufabric.catalog import CheckSpec, load_catalog
from pytest_gpufabric.expectations import Expectation, Profile, load_profile
from pytest_gpufabric.measuring.verdicts import rails_message
from pytest_gpufabric.reporting.acceptance.load import cycle_collector_paused
from pytest_gpufabric.reporting.acceptance.run_plugin import profile_info
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, now_text, write_run_info
from pytest_gpufabric.scheduling.rounds import circle_rounds
from pytest_gpufabric.shapes import MachineShape

PROFILE = "mi300x-thor2"
SHAPE = MachineShape(8, "MI300X", "xgmi", 400)  # every synthesized node: 8 MI300X on XGMI, 400G NICs
THRESHOLDS = Path(__file__).resolve().parents[1] / "thresholds"
NODES_PER_LEAF = 32  # one scalable unit: 32 nodes, each rail on its own 64-port leaf (32 down, 32 up)
BIDIRECTIONAL_GBPS, LATENCY_US = 775.0, 2.9
SLOW_GBPS, SLOW_LATENCY_US = 180.0, 9.5
SLOW_NIC_SHARE = 0.85
NOISE = 0.01
FAULTS = ("bad-cable", "bad-nic", "slow-nic", "old-firmware", "unmeasured")
OLD_FIRMWARE = "230.0.100.0"
# NIC-pair checks (one entry per rail and node pair): the judged metric and how many directions report it.
PAIR_METRICS = {"NET-002": ("loss_percent", 1), "PERF-002": ("average_bw_gbps", 2), "PERF-003": ("average_bw_gbps", 2),
                "PERF-004": ("average_bw_gbps", 2), "PERF-005": ("average_bw_gbps", 2), "PERF-007": ("typical_latency_us", 1),
                "PERF-008": ("average_bw_gbps", 2)}


def node_name(index: int, count: int = 999) -> str:
    """node001..node256, node0001..node1024: zero-padded, so that name order is number order."""
    return f"node{index + 1:0{max(3, len(str(count)))}d}"


def nic_name(rail: int) -> str:
    return f"bnxt_re{rail}"


def leaf_name(node_index: int, rail: int) -> str:
    return f"leaf-su{node_index // NODES_PER_LEAF + 1:02d}-r{rail}"


@dataclass(frozen=True)
class Faults:
    """Where each injected fault is (None: not injected)."""

    bad_cable: tuple[str, str, int] | None
    bad_nic: str | None
    slow_nic: str | None
    old_firmware: str | None
    unmeasured: str | None

    @classmethod
    def chosen(cls, nodes: list[str], rails: int, names: tuple[str, ...] = FAULTS) -> Faults:
        unknown = set(names) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)} (known: {', '.join(FAULTS)})")
        last = len(nodes) - 1

        def rail(wanted: int) -> int:
            return min(wanted, rails - 1)

        return cls(bad_cable=(nodes[0], nodes[min(2, last)], rail(2)) if "bad-cable" in names else None,
                   bad_nic=f"{nodes[-1]}/{nic_name(rail(5))}" if "bad-nic" in names else None,
                   slow_nic=f"{nodes[min(7, last)]}/{nic_name(rail(6))}" if "slow-nic" in names else None,
                   old_firmware=nodes[min(3, last)] if "old-firmware" in names else None,
                   unmeasured=nodes[min(4, last)] if "unmeasured" in names else None)

    def factor(self, a: str, b: str, rail: int) -> float | None:
        """The share of the healthy value a NIC pair reaches: None for healthy, 0 for a failing (slow) pair."""
        ends = {f"{a}/{nic_name(rail)}", f"{b}/{nic_name(rail)}"}
        if self.bad_nic in ends or self.bad_cable in ((a, b, rail), (b, a, rail)):
            return 0.0
        return SLOW_NIC_SHARE if self.slow_nic in ends else None


def _measurement(e: Expectation, where: str, measured: Any, detail: str = "synthesized") -> dict[str, Any]:
    return {"check": e.check, "name": e.name, "where": where, "measured": measured, "expected": e.describe(),
            "op": e.op, "threshold": e.value, "unit": e.unit, "source": e.source, "passed": e.holds_for(measured),
            "detail": detail}


def _test_name(check: str) -> str:
    return "test_" + check.lower().replace("-", "_")


def _record(spec: CheckSpec, item: str, outcome: str, measurements: list[dict[str, Any]], message: str | None = None,
            **extra: Any) -> dict[str, Any]:
    decisive = next((m for m in measurements if not m["passed"]), measurements[-1] if measurements else None)
    return {"schema": 1, "node_id": f"suites/acceptance/synth.py::{_test_name(spec.id)}[{item}]", "check_id": spec.id,
            "title": spec.title, "item": item, "outcome": outcome, "measured": decisive["measured"] if decisive else None,
            "expected": decisive["expected"] if decisive else None, "unit": decisive["unit"] if decisive else None,
            "source": decisive["source"] if decisive else None, "hint": spec.hint if outcome != "passed" else None,
            "message": message, "measurements": measurements, "commands": [], "scope": spec.scope, **extra}


def _outcome(measurements: list[dict[str, Any]]) -> str:
    return "passed" if all(m["passed"] for m in measurements) else "failed"


def _healthy(e: Expectation, rng: random.Random) -> Any:
    """A passing value: the healthy perftest figure with noise for its bandwidth and latency, else the profile's
    (the first of a list of allowed values)."""
    if e.name == "average_bw_gbps":
        return round(BIDIRECTIONAL_GBPS * (1 + rng.uniform(-NOISE, NOISE)), 2)
    if e.name == "typical_latency_us":
        return round(LATENCY_US * (1 + rng.uniform(-NOISE, NOISE)), 3)
    return e.value[0] if e.op == "in" else e.value


def _value(e: Expectation, factor: float | None, rng: random.Random) -> Any:
    healthy = _healthy(e, rng)
    if factor is None or not isinstance(healthy, float):
        return healthy
    if e.unit == "us":
        return SLOW_LATENCY_US if factor == 0 else round(healthy / factor, 3)
    return SLOW_GBPS if factor == 0 else round(healthy * factor, 2)


class Synthesizer:
    """The records of one synthesized run, check by check, in node id order (the order of results.jsonl)."""

    def __init__(self, profile: Profile, nodes: list[str], rails: int, faults: Faults, rounds: int | None = None) -> None:
        self.profile, self.nodes, self.rails, self.faults = profile, nodes, rails, faults
        self.rng = random.Random(7)
        self.node_pairs = self._node_pairs(rounds)

    def _node_pairs(self, rounds: int | None) -> list[tuple[str, str]]:
        """Every node pair in name order, or those of the first ``rounds`` circle rounds and of the faults."""
        if rounds is None:
            return list(itertools.combinations(self.nodes, 2))
        kept = {tuple(sorted(pair)) for circle in circle_rounds(self.nodes)[:rounds] for pair in circle}
        bad = [end.split("/")[0] for end in (self.faults.bad_nic, self.faults.slow_nic) if end]
        kept |= {tuple(sorted((node, other))) for node in bad for other in self.nodes if other != node}
        if self.faults.bad_cable:
            kept.add(tuple(sorted(self.faults.bad_cable[:2])))
        return sorted(kept)  # type: ignore[arg-type]

    def records(self) -> Iterator[dict[str, Any]]:
        specs = [spec for spec in load_catalog() if self.profile.expectations.get(spec.id)
                 and spec.id not in self.profile.not_applicable]
        makers: dict[str, Callable[[CheckSpec], Iterator[dict[str, Any]]]] = {
            "node": self._config_records, "nic": self._config_records, "nic_pair": self._pair_records,
            "node_pair": self._node_pair_records}
        for spec in sorted((s for s in specs if s.scope in makers), key=lambda s: _test_name(s.id)):
            yield from makers[spec.scope](spec)

    def _shaped(self, check: str) -> dict[str, Expectation]:
        """The check's expectations for the synthesized machines' shape (those documented for it)."""
        return {name: found for name, e in self.profile.expectations[check].items()
                if (found := e.for_shape(SHAPE)) is not None}

    def _config_records(self, spec: CheckSpec) -> Iterator[dict[str, Any]]:
        expectations = self._shaped(spec.id).values()
        for node in self.nodes:
            targets = [node] if spec.scope == "node" else [f"{node}/{nic_name(r)}" for r in range(self.rails)]
            for target in targets:
                if self.faults.unmeasured == target and spec.id == "DRV-001":
                    yield _record(spec, target, "error", [], f"MeasurementMissing: {target}: modinfo bnxt_en printed nothing")
                    continue
                old = spec.id == "DRV-004" and node == self.faults.old_firmware
                values = [_measurement(e, target, OLD_FIRMWARE if old else _healthy(e, self.rng)) for e in expectations]
                yield _record(spec, target, _outcome(values), values)

    def _entry(self, spec: CheckSpec, a: str, b: str, rail: int) -> dict[str, Any]:
        metric, directions = PAIR_METRICS[spec.id]
        e = self.profile.get(spec.id, metric, SHAPE)
        pair = f"{a}/{nic_name(rail)}->{b}/{nic_name(rail)}"
        factor = self.faults.factor(a, b, rail)
        measured = [_measurement(e, f"{x}/{nic_name(rail)}->{y}/{nic_name(rail)}", _value(e, factor, self.rng))
                    for x, y in ((a, b), (b, a))[:directions]]
        failed = [m for m in measured if not m["passed"]]
        worst = failed[0] if failed else min(measured, key=lambda m: m["measured"] if e.op in (">=", ">") else -m["measured"])
        outcome = "failed" if failed else "passed"
        return {"pair": pair, "rail": rail, "node_a": a, "nic_a": nic_name(rail), "node_b": b, "nic_b": nic_name(rail),
                "outcome": outcome, "measured": worst["measured"], "expected": e.describe(), "unit": e.unit,
                "source": e.source, "hint": None if outcome == "passed" else spec.hint,
                "message": None if outcome == "passed" else f"rail {rail}: {pair} {worst['measured']} {e.unit}",
                "measurements": measured}

    def _pair_records(self, spec: CheckSpec) -> Iterator[dict[str, Any]]:
        for a, b in self.node_pairs:
            entries = [self._entry(spec, a, b, rail) for rail in range(self.rails)]
            failed = [m for entry in entries for m in entry["measurements"] if not m["passed"]]
            message = rails_message(spec.id, spec.title, f"{a}->{b}", entries, {}, spec.hint) if failed else None
            yield _record(spec, f"{a}->{b}", "failed" if failed else "passed", failed or entries[-1]["measurements"],
                          message, scope="node_pair", pairs=entries)

    def _node_pair_values(self, spec: CheckSpec, a: str, b: str) -> list[dict[str, Any]]:
        expectations = self._shaped(spec.id)
        if spec.id == "NET-001":  # every NIC of a pings every NIC of b
            e = expectations["loss_percent"]
            return [_measurement(e, f"{a}/{nic_name(x)} -> {b}/{nic_name(y)}", e.value)
                    for x in range(self.rails) for y in range(self.rails)]
        if spec.id == "PERF-006":  # every GPU-NIC pair at once, one value per rail
            e = expectations["average_bw_gbps"]
            return [_measurement(e, f"{b}/{nic_name(r)}->{a}/{nic_name(r)}", _value(e, self.faults.factor(a, b, r), self.rng))
                    for r in range(self.rails)]
        return [_measurement(e, f"{a}->{b} ({name})", _healthy(e, self.rng)) for name, e in expectations.items()
                if name != "completion_errors"]

    def _node_pair_records(self, spec: CheckSpec) -> Iterator[dict[str, Any]]:
        for a, b in self.node_pairs:
            values = self._node_pair_values(spec, a, b)
            yield _record(spec, f"{a}->{b}", _outcome(values), values, scope="node_pair")


@dataclass(frozen=True)
class Synthesized:
    """The results file written and how many of its records have each outcome."""

    path: Path
    outcomes: Counter[str]
    faults: Faults


def synthesize(out: Path, n_nodes: int, rails: int, faults: tuple[str, ...] = FAULTS, rounds: int | None = None) -> Synthesized:
    profile = load_profile(THRESHOLDS, PROFILE)
    nodes = [node_name(i, n_nodes) for i in range(n_nodes)]
    chosen = Faults.chosen(nodes, rails, faults)
    out.mkdir(parents=True, exist_ok=True)
    info = RunInfo(site=f"synthesized-{n_nodes}x{rails}", profile=PROFILE, profiles=(profile_info(profile),),
                   run_id=f"synthesized-{n_nodes}x{rails}", plugin_version=__version__, started=now_text(),
                   finished=now_text(), mode="SYNTHESIZED results (tools/synthesize_results.py), not a measurement",
                   rails={f"{n}/{nic_name(r)}": r for n in nodes for r in range(rails)},
                   leaves={f"{n}/{nic_name(r)}": leaf_name(i, r) for i, n in enumerate(nodes) for r in range(rails)})
    write_run_info(out, info)
    path = out / "results.jsonl"
    outcomes: Counter[str] = Counter()
    with cycle_collector_paused(), path.open("wb") as stream:
        for record in Synthesizer(profile, nodes, rails, chosen, rounds).records():
            outcomes[record["outcome"]] += 1
            stream.write(orjson.dumps(record, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE))
    return Synthesized(path, outcomes, chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=256)
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("--faults", default=",".join(FAULTS), help=f"comma-separated, of {', '.join(FAULTS)} ('' for none)")
    parser.add_argument("--rounds", type=int, help="only the node pairs of the first K circle rounds (and of the faults)")
    parser.add_argument("-o", "--output", required=True, type=Path)
    args = parser.parse_args()
    if args.nodes < 3 or args.rails < 1:
        parser.error("expected at least 3 nodes and 1 rail")
    try:
        synthesized = synthesize(args.output, args.nodes, args.rails, tuple(f for f in args.faults.split(",") if f),
                                 args.rounds)
    except ValueError as exc:
        parser.error(str(exc))
    print(synthesized.path)


if __name__ == "__main__":
    main()
