"""Cover, per-area summary and the node x check matrix."""

from __future__ import annotations

from html import escape

import pandas as pd

from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, frame_table, section
from pytest_gpufabric.reporting.acceptance.model import OUTCOME_LABELS, OUTCOMES, SEVERITY, ReportModel

SEVERITY_OUTCOME = {severity: outcome for outcome, severity in SEVERITY.items()}


def _outside_note(model: ReportModel) -> str:
    outside = model.outside_counts
    if not (outside["failed"] or outside["error"]):
        return ""
    return f"; outside the profile's checks: {outside['failed']} failed, {outside['error']} not measured"


def verdict_line(model: ReportModel) -> str:
    """"accepted" only when the run completed and nothing failed or went unmeasured in the profile's checks."""
    counts = model.scope_counts
    if model.accepted:
        return "accepted" + _outside_note(model)
    if not sum(model.counts.values()):
        return "not accepted: the results file holds no items"
    if not model.info.complete:
        why = "was interrupted" if model.info.interrupted else "did not finish"
        all_counts = model.counts
        return (f"not accepted: the run {why} ({sum(all_counts.values())} items recorded: {all_counts['failed']} failed, "
                f"{all_counts['error']} not measured)")
    if not counts["passed"] and not counts["failed"] and not counts["error"]:
        return "not accepted: nothing of the profile's checks was measured"
    return f"not accepted: {counts['failed']} failed, {counts['error']} not measured" + _outside_note(model)


def run_status(model: ReportModel) -> str:
    info = model.info
    if info.interrupted:
        return f"INTERRUPTED at {info.finished}: this report holds the items that completed before the run was stopped"
    if not info.started and not info.finished:
        return "not recorded (no run.json beside the results file)"
    if not info.finished:
        return ("INCOMPLETE: the run has not finished (still running, or stopped without finishing); this report "
                "holds the items recorded so far")
    return f"completed {info.finished}"


def _scope(model: ReportModel) -> str:
    required = model.info.required_checks
    if required is None:
        return "every item of the run (the run information names no profile checks)"
    outside = int((~model.in_scope).sum())
    return (f"the {len(required)} checks the profile requires ({int(model.in_scope.sum())} items); "
            f"{outside} items outside it are shown but do not decide the verdict")


def cover(model: ReportModel, date: str, notes: tuple[str, ...] = ()) -> str:
    """Site, run, verdict and totals; ``notes`` are warnings about the results file shown under the verdict."""
    info = model.info
    counts = model.counts
    profiles = "".join(
        f"<li><b>{escape(p.name)}</b> {escape(p.title)}<ul>"
        + "".join(f"<li>{escape(key)}: {escape(doc)}</li>" for key, doc in sorted(p.documents.items()))
        + "</ul></li>"
        for p in info.profiles
    ) or f"<li>{escape(info.profile)}</li>"
    facts = [("site", info.site), ("date", date), ("run", run_status(model)), ("verdict scope", _scope(model)),
             ("run id", info.run_id or "not recorded"),
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
    warnings = ([] if info.complete else [run_status(model)]) + list(notes)
    banner = "".join(f"<p class='incomplete'>{escape(w)}</p>" for w in warnings)
    return (
        f"<section id='cover'><h1>Fabric acceptance report: {escape(info.site)}</h1>{banner}"
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


MATRIX_PRINT_COLUMNS = 26  # checks per printed table: the whole matrix fits the page width in parts


def _matrix_table(worst: pd.DataFrame, total: pd.DataFrame, bad: pd.DataFrame, columns: list[object],
                  table_id: str | None) -> str:
    head = "".join(f"<th class='rot'><span>{escape(str(c))}</span></th>" for c in columns)
    rows = []
    for node in worst.index:
        cells = []
        for check in columns:
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
    return (f"<table{attrs({'id': table_id, 'class': 'matrix'})}><thead><tr><th>node</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def node_check_matrix(model: ReportModel) -> str:
    """The whole matrix on screen; in print, split into parts of ``MATRIX_PRINT_COLUMNS`` checks (every column
    on paper)."""
    worst, total, bad = model.node_check_matrix()
    if worst.empty:
        return section("matrix", "Nodes and checks", ["<p>No item names a node.</p>"])
    columns = list(worst.columns)
    parts = [columns[i:i + MATRIX_PRINT_COLUMNS] for i in range(0, len(columns), MATRIX_PRINT_COLUMNS)]
    printed = "".join(
        f"<div class='matrix-part' data-part='{n + 1}'><p>checks {escape(str(part[0]))} to {escape(str(part[-1]))} "
        f"(part {n + 1} of {len(parts)})</p>{_matrix_table(worst, total, bad, part, None)}</div>"
        for n, part in enumerate(parts))
    legend = "".join(f"<span class='key o-{o}'>{escape(OUTCOME_LABELS[o])}</span>" for o in OUTCOMES)
    return section("matrix", "Nodes and checks", [
        f"<p class='legend'>{legend}</p>",
        f"<div class='scroll screen-only'>{_matrix_table(worst, total, bad, columns, 'node-check-matrix')}</div>",
        f"<div class='print-only' id='node-check-matrix-print'>{printed}</div>"],
        "Each cell: items of the check touching the node (failed or not measured / all); the colour is the "
        "worst outcome; a link leads to the failures.")
