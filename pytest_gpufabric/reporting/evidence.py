"""Evidence of a check for the reports: measured vs expected, and the raw output of every command.

The same plain data goes into the results file; pytest-html gets a compact HTML table plus the raw
outputs (bounded in size), Allure gets one attachment per command.
"""

from __future__ import annotations

import html
from typing import Any

import pytest

from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.recording.scrub import Scrubber
from pytest_gpufabric.verdict import Measurement

INLINE_OUTPUT_LIMIT = 8_000


def _clip(text: str) -> str:
    if len(text) <= INLINE_OUTPUT_LIMIT:
        return text
    return text[:INLINE_OUTPUT_LIMIT] + f"\n... ({len(text) - INLINE_OUTPUT_LIMIT} more characters in the Allure attachment)"


def evidence_data(context: CheckContext) -> dict[str, Any]:
    """Plain data (crosses from xdist workers to the controller)."""
    data: dict[str, Any] = {
        "measurements": [m.as_record() for m in context.measurements],
        "commands": [
            {"node": r.node, "command": r.command, "exit_code": r.exit_code} for r in context.commands
        ],
    }
    if context.failure_hint:
        data["hint"] = context.failure_hint
    if context.pairs:
        data["pairs"] = context.pairs
    if context.unread:
        data["unread"] = [u.as_record() for u in context.unread]
    if context.notes:
        data["notes"] = list(context.notes)
    return data


def _rail_heading(pair: dict[str, Any]) -> str:
    """One line per NIC pair: ``rail 2: node01/bnxt_re2 <-> node03/bnxt_re2 232.5 Gb/s < 380 [failed]``."""
    if pair["outcome"] != "passed":
        return f"{pair['message']} [{pair['outcome']}]"
    unit = f" {pair['unit']}" if pair["unit"] else ""
    return f"rail {pair['rail']}: {pair['node_a']}/{pair['nic_a']} <-> {pair['node_b']}/{pair['nic_b']} {pair['measured']}{unit} [passed]"


def _rows(measurements: list[dict[str, Any]]) -> str:
    return "".join(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
            html.escape(m["where"]), html.escape(m["name"]), html.escape(f"{m['measured']!r} {m['unit']}".strip()),
            html.escape(m["expected"]), html.escape(m["source"]), "pass" if m["passed"] else "<b>FAIL</b>",
        )
        for m in measurements
    )


def _measurement_table(context: CheckContext) -> str:
    head = "<tr><th>where</th><th>value</th><th>measured</th><th>expected</th><th>source</th><th>verdict</th></tr>"
    title = f"<p><b>{html.escape(context.check.id)}</b> {html.escape(context.check.title)}</p>"
    if not context.pairs:
        return f"{title}<table>{head}{_rows([m.as_record() for m in context.measurements])}</table>"
    rails = "".join(f"<tr><th colspan='6'>{html.escape(_rail_heading(pair))}</th></tr>{_rows(pair['measurements'])}"
                    for pair in context.pairs)
    return f"{title}<table>{head}{rails}</table>"


def _unread_block(context: CheckContext, node: str, command: str) -> str:
    """The lines of one output the parsers did not understand, and the notes on it (empty: none)."""
    lines = [f"  line {u.unread.line}: {u.unread.text.strip()}    ({u.unread.reason})"
             for u in context.unread if (u.node, u.command) == (node, command)]
    notes = [note.split(": ", 1)[1] for note in context.notes if note.startswith(f"{node} `{command}`: ")]
    block = ""
    if lines:
        block += f"\n[not understood: {len(lines)} line(s), their facts are not read]\n" + "\n".join(lines)
    if notes:
        block += "\n[notes]\n" + "\n".join(f"  {note}" for note in notes)
    return block


def _raw_outputs(context: CheckContext) -> str:
    parts = []
    shown: set[tuple[str, str]] = set()
    for r in context.commands:
        body = _clip(r.stdout) + (f"\n[stderr]\n{_clip(r.stderr)}" if r.stderr else "")
        if (r.node, r.command) not in shown:
            body += _unread_block(context, r.node, r.command)
            shown.add((r.node, r.command))
        parts.append(f"$ {r.command}    # on {r.node}, exit {r.exit_code}\n{body}")
    return "\n\n".join(parts)


def attach_evidence(item: pytest.Item, report: pytest.TestReport, context: CheckContext, scrubber: Scrubber) -> None:
    """Add the evidence, scrubbed of secrets, to the pytest-html extras and the Allure result, when those
    reports are written (``--html``, ``--alluredir``): nothing is built for a report nobody asked for."""
    if item.config.pluginmanager.hasplugin("html") and getattr(item.config.option, "htmlpath", None):
        from pytest_html import extras

        report.extras = [*getattr(report, "extras", []), extras.html(scrubber.scrub(_measurement_table(context))),
                         extras.text(scrubber.scrub(_raw_outputs(context)), name="raw command output")]
    if item.config.pluginmanager.hasplugin("allure_pytest") and getattr(item.config.option, "allure_report_dir", None):
        import allure

        if context.pairs:
            for pair in context.pairs:  # one step per rail, its judged values inside
                with allure.step(scrubber.scrub(_rail_heading(pair))):
                    for record in pair["measurements"]:
                        with allure.step(scrubber.scrub(Measurement(**record).line())):
                            pass
        for m in context.measurements if not context.pairs else ():
            with allure.step(scrubber.scrub(m.line())):
                pass
        for r in context.commands:
            allure.attach(
                scrubber.scrub(
                    f"$ {r.command}\n# exit {r.exit_code}\n{r.stdout}" + (f"\n[stderr]\n{r.stderr}" if r.stderr else "")
                    + _unread_block(context, r.node, r.command)
                ),
                name=scrubber.scrub(f"{r.node}: {r.command[:80]}"),
                attachment_type=allure.attachment_type.TEXT,
            )
