"""The report's fleet sections: outliers (values that pass their threshold but stand out from their peers) and
the statistics of every measured value per check, metric and rail."""

from __future__ import annotations

from html import escape

import pandas as pd

from pytest_gpufabric.reporting.acceptance.fleet_view import FleetAnalysis, rail_text
from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, frame_table, section, text

OUTLIERS_LISTED = 50


def _rules(analysis: FleetAnalysis) -> str:
    items = []
    for name, rule in sorted(analysis.rules.items()):
        if rule is None:
            items.append(f"<li><b>{escape(name)}</b>: no outlier rule (no outlier is judged for its nodes)</li>")
        else:
            note = f" Why: {escape(rule.note)}" if rule.note else ""
            items.append(f"<li><b>{escape(name)}</b>: {escape(rule.describe())} [{escape(rule.source)}].{note}</li>")
    return f"<ul class='rules'>{''.join(items)}</ul>"


def _counts(found: pd.DataFrame) -> str:
    table = found.assign(rail=found["rail"].map(rail_text), threshold=found["passed"].map({True: "passed", False: "failed"}))
    counts = pd.crosstab([table["check_id"], table["metric"], table["rail"]], table["threshold"]).reset_index()
    counts.columns.name = None
    return frame_table(counts.rename(columns={"passed": "outliers passing the threshold",
                                              "failed": "also failing the threshold"}), table_id="outlier-counts", index=False)


def _listed(found: pd.DataFrame) -> str:
    passing = found[found["passed"].astype(bool)].sort_values("gap", ascending=False)
    rows = "".join(
        f"<tr{attrs({'class': 'o-failed' if r.verdict == 'fail' else 'o-error', 'data-item': r.item, 'data-check': r.check_id})}>"
        f"<td>{escape(str(r.check_id))}</td><td>{escape(str(r.metric))}</td><td>{escape(rail_text(r.rail))}</td>"
        f"<td>{escape(str(r.item))}</td><td>{text(r.value)} {escape(str(r.unit))}</td><td>{text(r.median)}</td>"
        f"<td>{r.gap:.1%}</td><td>{'all peers equal' if r.score == float('inf') else f'{r.score:.1f}'}</td>"
        f"<td>{int(r.peers)}</td><td>{escape(str(r.group))}</td><td>{escape(str(r.verdict))}</td></tr>"
        for r in passing.head(OUTLIERS_LISTED).itertuples(index=False))
    more = (f"<p>{len(passing) - OUTLIERS_LISTED} more outliers passing their thresholds: outliers.csv, summary.xlsx, "
            "the run summary of results.jsonl.</p>") if len(passing) > OUTLIERS_LISTED else ""
    head = "".join(f"<th>{h}</th>" for h in ("check", "metric", "rail", "where", "value", "peers' median", "worse by",
                                             "robust deviations", "peers", "peer group", "verdict"))
    return (f"<table id='outlier-table' class='grid failures'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
            f"{more}")


def outliers(analysis: FleetAnalysis) -> str:
    """Counts per check, metric and rail, and the outliers that pass their thresholds, worst first."""
    found = analysis.outliers
    body = [_rules(analysis)]
    if found.empty:
        body.append("<p id='no-outliers'>No value stands out from its peers.</p>")
    else:
        body += [_counts(found), _listed(found)]
    return section("outliers", "Outliers: values worse than their peers", body,
                   "A value more than k robust deviations (MAD x 1.4826) and the minimum gap worse than the median of its "
                   "peers (same check, metric, rail and group: thresholds profile, and for a NIC pair one leaf or across "
                   "leaves) is an outlier, also when it passes its threshold. An outlier warns unless its profile says "
                   "outliers fail; it is input to the fault localization (Suspects).")


def statistics(analysis: FleetAnalysis) -> str:
    """Count, min, percentiles, median, max, std and MAD of every measured value per check, metric and rail."""
    if analysis.statistics.empty:
        return section("fleet", "Fleet statistics", ["<p>No numeric value in this run.</p>"])
    table = analysis.statistics.assign(rail=analysis.statistics["rail"].map(rail_text)).round(4)
    return section("fleet", "Fleet statistics", [frame_table(table, table_id="fleet-statistics", index=False)],
                   "Every measured value per check, metric, unit and rail (both directions of each NIC pair; '-': values "
                   "of no NIC). MAD: median absolute deviation from the median, unscaled.")
