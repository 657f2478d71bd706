"""Versions per node, suspects of the fault localization, every failure, and the raw evidence."""

from __future__ import annotations

from html import escape
from typing import Any

import pandas as pd

from pytest_gpufabric.checks.localization import Localization, summary_lines
from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, frame_table, section, text
from pytest_gpufabric.reporting.acceptance.model import OUTCOME_LABELS
from pytest_gpufabric.reporting.acceptance.recorded import RecordedOutputs

EVIDENCE_CHARS_PER_COMMAND = 6_000


def versions(table: pd.DataFrame, odd: pd.DataFrame) -> str:
    if table.empty:
        return section("versions", "Inventory and versions", ["<p>No versions were read in this run.</p>"])

    def cell_class(node: Any, column: Any, _: Any) -> str:
        return "odd" if bool(odd.at[node, column]) else ""

    return section("versions", "Inventory and versions", [frame_table(table, table_id="version-table", cell_class=cell_class)],
                   "As the checks read them on each node; highlighted: judged wrong by its check, or unlike most nodes.")


def suspects(localization: Localization) -> str:
    rows = [(f"suspect {end.end}", f"fails with {len(end.partners)} partners: {', '.join(end.partners)}", ", ".join(end.checks))
            for end in localization.suspect_ends]
    rows += [(f"suspect link {link.a} <-> {link.b}", "fails only together: cable, optics or switch port", ", ".join(link.checks))
             for link in localization.suspect_links]
    if not rows:
        return section("suspects", "Suspects", ["<p>No pair failures to localize.</p>"])
    body = "".join(f"<tr><td class='suspect'>{escape(a)}</td><td>{escape(b)}</td><td>{escape(c)}</td></tr>" for a, b, c in rows)
    table = f"<table id='suspect-table' class='grid'><thead><tr><th>suspect</th><th>why</th><th>checks</th></tr></thead><tbody>{body}</tbody></table>"
    lines = "".join(f"<li>{escape(line)}</li>" for line in summary_lines(localization))
    return section("suspects", "Suspects", [table, f"<p>As the terminal prints them:</p><ul id='suspect-lines'>{lines}</ul>"],
                   "What to fix first: an end failing with two or more partners, or a link failing while both its ends "
                   "pass with everyone else.")


def failures(frame: pd.DataFrame, titles: dict[str, str], approved: dict[str, str] | None = None) -> str:
    """Every failed or unmeasured item; one an approved deviation covers says so (it stays failed)."""
    if frame.empty:
        return section("failures", "Failures", ["<p>Nothing failed and everything was measured.</p>"])
    approved = approved or {}
    body = []
    for check_id, group in frame.groupby("check_id", sort=True):
        rows = "".join(
            f"<tr{attrs({'class': 'o-' + r.outcome, 'data-outcome': r.outcome, 'data-node-id': r.node_id, 'data-deviation': approved.get(r.node_id)})}>"
            f"<td><a href='#evidence-{index}'>{escape(str(r.item))}</a></td><td>{escape(OUTCOME_LABELS[r.outcome])}"
            f"{'<br><i>' + escape(approved[r.node_id]) + '</i>' if r.node_id in approved else ''}</td>"
            f"<td>{text(r.measured)} {text(r.unit)}</td><td>{text(r.expected)}</td><td>{text(r.source)}</td>"
            f"<td>{text(r.hint)}</td><td class='message'>{text(r.message)}</td></tr>"
            for index, r in zip(group.index, group.itertuples(index=False))
        )
        body.append(f"<h3 id='fail-{escape(str(check_id))}'>{escape(str(check_id))} {escape(titles.get(str(check_id), ''))}"
                    f" ({len(group)})</h3><table class='grid failures'><thead><tr><th>item</th><th>outcome</th>"
                    f"<th>measured</th><th>expected</th><th>source</th><th>hint</th><th>message</th></tr></thead>"
                    f"<tbody>{rows}</tbody></table>")
    return section("failures", "Failures and unmeasured items", body,
                   "Every item that failed or could not be measured, with the measured and expected value, the "
                   "document the expectation comes from, and the documented fix.")


def _evidence(record: dict[str, Any], recorded: RecordedOutputs) -> str:
    parts = []
    for command, episode in recorded.outputs_of(record):
        head = f"$ {command.get('command')}    # on {command.get('node')}, exit {command.get('exit_code')}"
        if episode is None:
            body = "(not in the recording)" if recorded.available else ""
        else:
            output = episode.stdout + (f"\n[stderr]\n{episode.stderr}" if episode.stderr else "")
            body = output if len(output) <= EVIDENCE_CHARS_PER_COMMAND else (
                output[:EVIDENCE_CHARS_PER_COMMAND] + f"\n... ({len(output) - EVIDENCE_CHARS_PER_COMMAND} more characters in the recording)")
        parts.append(f"{head}\n{body}".rstrip())
    measurements = "\n".join(
        f"[{'ok' if m.get('passed') else 'FAIL'}] {m.get('where')}: {m.get('name')} = {m.get('measured')!r} {m.get('unit') or ''}"
        f", expected {m.get('expected')} [{m.get('source')}]" for m in record.get("measurements") or ())
    return "\n\n".join(p for p in [measurements, *parts] if p) or (record.get("message") or "no evidence recorded")


def appendix(frame: pd.DataFrame, records: list[dict[str, Any]], recorded: RecordedOutputs) -> str:
    if frame.empty:
        return section("appendix", "Appendix: raw evidence", ["<p>No failed item.</p>"])
    note = "" if recorded.available else (
        "<p>Raw outputs come from the recording; give --recording DIR to include them. Commands and judged values follow.</p>")
    blocks = [
        f"<details open id='evidence-{index}'><summary>{escape(str(records[index].get('check_id')))} "
        f"{escape(str(records[index].get('item')))}</summary><pre>{escape(_evidence(records[index], recorded))}</pre></details>"
        for index in frame.sort_index().index
    ]
    return section("appendix", "Appendix: raw evidence of failed items", [note, *blocks])
