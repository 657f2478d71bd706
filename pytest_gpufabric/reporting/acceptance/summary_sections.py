"""Cover, per-area summary and the node x check matrix."""

from __future__ import annotations

from html import escape

import pandas as pd

from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, frame_table, section
from pytest_gpufabric.reporting.acceptance.model import OUTCOME_LABELS, OUTCOMES, SEVERITY, ReportModel

SEVERITY_OUTCOME = {severity: outcome for outcome, severity in SEVERITY.items()}


def verdict_line(model: ReportModel) -> str:
    counts = model.counts
    if model.accepted:
        return "accepted"
    if not sum(counts.values()):
        return "not accepted: the results file holds no items"
    return f"not accepted: {counts['failed']} failed, {counts['error']} not measured"


def cover(model: ReportModel, date: str) -> str:
    info = model.info
    counts = model.counts
    profiles = "".join(
        f"<li><b>{escape(p.name)}</b> {escape(p.title)}<ul>"
        + "".join(f"<li>{escape(key)}: {escape(doc)}</li>" for key, doc in sorted(p.documents.items()))
        + "</ul></li>"
        for p in info.profiles
    ) or f"<li>{escape(info.profile)}</li>"
    facts = [("site", info.site), ("date", date), ("run id", info.run_id or "not recorded"),
             ("plugin version", f"pytest-gpufabric {info.plugin_version}" if info.plugin_version else "not recorded"),
             ("mode", info.mode or "not recorded"), ("inventory", info.inventory or "not recorded")]
    rows = "".join(f"<tr><th>{escape(k)}</th><td{attrs({'id': 'cover-' + k.replace(' ', '-')})}>{escape(v)}</td></tr>"
                   for k, v in facts)
    totals = "".join(
        f"<div class='total o-{o}'><span class='n' id='total-{o}' data-outcome='{o}'>{counts[o]}</span>"
        f"<span class='label'>{escape(OUTCOME_LABELS[o])}</span></div>" for o in OUTCOMES
    )
    verdict = verdict_line(model)
    css = "accepted" if model.accepted else "rejected"
    return (
        f"<section id='cover'><h1>Fabric acceptance report: {escape(info.site)}</h1>"
        f"<p id='verdict' class='verdict {css}'>{escape(verdict)}</p>"
        f"<div class='totals'>{totals}</div><table class='facts'>{rows}</table>"
        f"<h3>Profile and its documents</h3><ul class='profiles'>{profiles}</ul></section>"
    )


def areas(model: ReportModel) -> str:
    table = model.area_summary().rename(columns=OUTCOME_LABELS)

    def cell_class(_: object, column: object, value: object) -> str:
        bad = {OUTCOME_LABELS["failed"]: "o-failed", OUTCOME_LABELS["error"]: "o-error"}
        return bad.get(str(column), "") if value else ""

    return section("areas", "Summary per area", [frame_table(table, table_id="area-table", cell_class=cell_class)],
                   "Items per outcome; an item that could not be measured is never a pass.")


def node_check_matrix(model: ReportModel) -> str:
    worst, total, bad = model.node_check_matrix()
    if worst.empty:
        return section("matrix", "Nodes and checks", ["<p>No item names a node.</p>"])
    head = "".join(f"<th class='rot'><span>{escape(str(c))}</span></th>" for c in worst.columns)
    rows = []
    for node in worst.index:
        cells = []
        for check in worst.columns:
            severity = worst.at[node, check]
            if pd.isna(severity):
                cells.append("<td></td>")
                continue
            outcome = SEVERITY_OUTCOME[int(severity)]
            n_bad, n_all = int(bad.at[node, check]), int(total.at[node, check])
            label = f"{n_bad}/{n_all}" if n_bad else str(n_all)
            tip = f"{node} {check}: {n_all} items, {n_bad} failed or not measured"
            body = f"<a href='#fail-{escape(str(check))}'>{label}</a>" if n_bad else label
            cells.append(f"<td{attrs({'class': 'o-' + outcome, 'title': tip})}>{body}</td>")
        rows.append(f"<tr><th>{escape(str(node))}</th>{''.join(cells)}</tr>")
    table = f"<table id='node-check-matrix' class='matrix'><thead><tr><th>node</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    legend = "".join(f"<span class='key o-{o}'>{escape(OUTCOME_LABELS[o])}</span>" for o in OUTCOMES)
    return section("matrix", "Nodes and checks", [f"<p class='legend'>{legend}</p>", f"<div class='scroll'>{table}</div>"],
                   "Each cell: items of the check touching the node (failed or not measured / all); the colour is the "
                   "worst outcome; a link leads to the failures.")
