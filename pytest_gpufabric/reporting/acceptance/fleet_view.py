"""The fleet analysis of one run: statistics and outliers from a digested results file and its run information,
and what the results file's run summary and the terminal say of them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from pytest_gpufabric.checks.localization import Localization, PairOutcome, localize, record_pair_outcomes
from pytest_gpufabric.fleet.outliers import Judgement, PeerGroups, combined, item_outliers, pair_outliers
from pytest_gpufabric.fleet.rules import OutlierRule
from pytest_gpufabric.fleet.statistics import fleet_statistics
from pytest_gpufabric.reporting.acceptance.digest import NO_RAIL, RunDigest
from pytest_gpufabric.reporting.acceptance.load import RUN_SUMMARY_KIND
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo

OUTLIERS_SHOWN = 10  # terminal lines of outliers beyond the suspects


def outlier_rules(info: RunInfo) -> dict[str, OutlierRule | None]:
    """Each profile of the run and its outlier rule (None: the profile has none, no outlier is judged)."""
    rules = {p.name: OutlierRule.from_plain(p.outliers) if p.outliers else None for p in info.profiles}
    return rules or {info.profile: None}


@dataclass(frozen=True)
class FleetAnalysis:
    """Statistics of every measured value and the outliers, with the rules that judged them."""

    statistics: pd.DataFrame
    outliers: pd.DataFrame
    rules: dict[str, OutlierRule | None]
    pair_table: pd.DataFrame  # the run's NIC-pair values (``pairs.PAIR_COLUMNS``)
    pairs: Judgement  # of each row of the pair table: median of its peers, gap, outlier

    @property
    def failing(self) -> pd.DataFrame:
        """Outliers that passed their thresholds, of profiles that say ``verdict: fail``: they fail the run."""
        return self.passing[self.passing["verdict"] == "fail"]

    @property
    def unjudged_profiles(self) -> list[str]:
        return sorted(name for name, rule in self.rules.items() if rule is None)

    @property
    def passing(self) -> pd.DataFrame:
        """Outliers that passed their thresholds (the others failed: they are failures already)."""
        return self.outliers[self.outliers["passed"].astype(bool)]

    def localization(self, records: Iterable[dict[str, Any]]) -> Localization:
        """Suspects over the NIC pairs of ``records`` exactly as the terminal localizes them (a pair failed: a judged
        value did not hold), then over the outlier pairs that passed their thresholds."""
        found = self.passing[self.passing["kind"] == "pair"]
        outliers = [PairOutcome(str(r.check_id), f"{r.node_a}/{r.nic_a}", f"{r.node_b}/{r.nic_b}", False, outlier=True)
                    for r in found.itertuples(index=False)]
        return localize([*(outcome for record in records for outcome in record_pair_outcomes(record)), *outliers])


def analyse(digest: RunDigest, info: RunInfo) -> FleetAnalysis:
    rules = outlier_rules(info)
    peers = PeerGroups(info.profile, info.node_profiles, info.leaves)
    table = digest.pairs_frame()
    pairs = pair_outliers(table, peers, rules.get)
    found = combined(pairs.found, item_outliers(digest.item_values_frame(), peers, rules.get))
    return FleetAnalysis(fleet_statistics(digest.values), found, rules, table, pairs)


def analyse_records(records: Iterable[dict[str, Any]], info: RunInfo) -> FleetAnalysis:
    """The analysis of records already in memory (the end of a run); the records are left as they are."""
    digest = RunDigest(info.rails)
    for record in records:
        digest.add(record)
    return analyse(digest, info)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value.item() if hasattr(value, "item") else value


def _rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{key: _plain(value) for key, value in row.items()} for row in frame.to_dict(orient="records")]


def run_summary(analysis: FleetAnalysis) -> dict[str, Any]:
    """The run summary line of ``results.jsonl``: fleet statistics per check, metric, unit and rail (rail -1:
    values of no NIC), the outliers and the rules that judged them."""
    return {"schema": 1, "kind": RUN_SUMMARY_KIND,
            "outlier_rules": {name: rule.as_plain() if rule else None for name, rule in sorted(analysis.rules.items())},
            "fleet_statistics": _rows(analysis.statistics), "outliers": _rows(analysis.outliers)}


def rail_text(rail: Any) -> str:
    return "-" if rail == NO_RAIL else str(rail)


def outlier_line(row: Any) -> str:
    """One outlier as a sentence: where, the value, its peers' median, the gap and the score."""
    unit = f" {row.unit}" if row.unit else ""
    score = "all peers equal" if math.isinf(row.score) else f"{row.score:.1f} robust deviations"
    verdict = "" if row.passed else ", also failed its threshold"
    return (f"{row.check_id} {row.metric} rail {rail_text(row.rail)}: {row.item} {row.value:g}{unit} vs median "
            f"{row.median:g}{unit} of {row.peers} peers ({row.group}): {row.gap:.0%} worse, {score}{verdict}")


def terminal_lines(analysis: FleetAnalysis, suspects: Callable[[], list[str]]) -> list[str]:
    """What the terminal says of the outliers that pass their thresholds: counts, the suspects, the worst ones."""
    if analysis.outliers.empty:
        unjudged = analysis.unjudged_profiles
        return ["no outliers" + (f" (profiles without an outlier rule: {', '.join(unjudged)})" if unjudged else "")]
    passing = analysis.passing
    failed = len(analysis.outliers) - len(passing)
    if passing.empty:
        return [f"no outlier passing its threshold ({failed} values failed their thresholds and are outliers too)"]
    verdicts = ", ".join(f"{n} {'fail the run' if verdict == 'fail' else 'warn'}"
                         for verdict, n in passing["verdict"].value_counts().sort_index().items())
    lines = [f"{len(passing)} values pass their thresholds but are worse than their peers ({verdicts}); "
             f"{failed} more failed their thresholds"]
    lines += suspects()
    worst = passing.sort_values("gap", ascending=False).head(OUTLIERS_SHOWN)
    lines += [("FAILED " if row.verdict == "fail" else "WARNING ") + outlier_line(row) for row in worst.itertuples(index=False)]
    if len(passing) > OUTLIERS_SHOWN:
        lines.append(f"... and {len(passing) - OUTLIERS_SHOWN} more (report, summary.xlsx, the run summary of results.jsonl)")
    return lines
