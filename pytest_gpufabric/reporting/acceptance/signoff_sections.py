"""The signed part's own sections: the cover (document control, verdict, scope, inputs, sign-off block), the
coverage of the plan, approved deviations, retests, the verdict per node and what was not applicable."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from html import escape
from typing import Any

from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, section
from pytest_gpufabric.reporting.acceptance.model import OUTCOME_LABELS, OUTCOMES, ReportModel, nodes_of
from pytest_gpufabric.signoff.acceptance import Acceptance
from pytest_gpufabric.signoff.merge import record_key
from pytest_gpufabric.signoff.plan import fold
from pytest_gpufabric.signoff.verdict import MISSING, STATE_WORDS

CHANGES_LISTED = 50
MISSING_REASONS_SHOWN = 3
STAMP = "%Y-%m-%d %H:%M:%S UTC"


def _rows(facts: list[tuple[str, str]], prefix: str) -> str:
    return "".join(f"<tr><th>{escape(k)}</th><td{attrs({'id': prefix + k.replace(' ', '-')})}>{escape(v)}</td></tr>"
                   for k, v in facts)


def _duration(started: str, finished: str) -> str:
    try:
        seconds = int((datetime.strptime(finished, STAMP) - datetime.strptime(started, STAMP)).total_seconds())
    except ValueError:
        return "not recorded"
    hours, rest = divmod(seconds, 3600)
    return f"{hours} h {rest // 60:02d} min {rest % 60:02d} s" if hours else f"{rest // 60} min {rest % 60:02d} s"


def verdict_text(acceptance: Acceptance, fallback: str) -> str:
    """The verdict line; without a plan (an older results file) coverage is unknown: never accepted."""
    if acceptance.verdict is not None:
        return acceptance.verdict.line()
    return ("not accepted: coverage cannot be checked (no plan.json beside the results: an older release or a bare "
            f"results file); {fallback.removeprefix('accepted').removeprefix('not accepted: ').lstrip('; ') or 'no finding'}")


def _document_control(model: ReportModel, acceptance: Acceptance, date: str) -> list[tuple[str, str]]:
    first, last = acceptance.runs[0].info, acceptance.runs[-1].info
    runs = ", ".join(run.info.run_id or run.results_file.parent.name for run in acceptance.runs)
    return [
        ("report id", acceptance.report_id), ("revision", f"{acceptance.revision} (the acceptance run and "
                                                            f"{acceptance.revision - 1} retests)"),
        ("content digest", f"SHA-256 {acceptance.digest()} (results files and deviations)"),
        ("site", model.info.site), ("date", date), ("run ids", runs),
        ("start", first.started or "not recorded"), ("end", last.finished or "not finished"),
        ("duration", _duration(first.started, last.finished)),
        ("test plan", (acceptance.plan.test_plan if acceptance.plan and acceptance.plan.test_plan else
                       "not declared (test_plan.reference in site.yaml)")),
        ("pair policy", acceptance.plan.pair_policy if acceptance.plan else "not recorded"),
        ("inventory", model.info.inventory or "not recorded"), ("mode", model.info.mode or "not recorded"),
        ("plugin version", f"pytest-gpufabric {model.info.plugin_version}" if model.info.plugin_version else "not recorded"),
    ]


def _scope_table(acceptance: Acceptance) -> str:
    plan = acceptance.plan
    if plan is None:
        return "<p>No plan recorded: the scope is what the results file holds.</p>"
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, node in plan.nodes.items():
        groups[(str(node["profile"]), str(node["platform"]))].append(name)
    rows = []
    for (profile, platform), names in groups.items():
        gpus = sum(int(plan.nodes[n]["gpus"]) for n in names)
        nics = sum(len(plan.nodes[n]["nics"]) for n in names)
        rows.append(f"<tr><td>{escape(fold(names))}</td><td>{len(names)}</td><td>{escape(platform)}</td><td>{gpus}</td>"
                    f"<td>{nics}</td><td>{escape(profile)}</td></tr>")
    switches = "".join(f"<tr><td>{escape(name)}</td><td>{escape(str(s['os']))}</td><td>{int(s['ports'])}</td></tr>"
                       for name, s in plan.switches.items())
    switch_table = (f"<table class='grid' id='scope-switches'><thead><tr><th>switch</th><th>OS</th><th>cabled ports</th>"
                    f"</tr></thead><tbody>{switches}</tbody></table>") if switches else "<p>No switch in the inventory.</p>"
    return (f"<table class='grid' id='scope-nodes'><thead><tr><th>nodes</th><th>count</th><th>platform</th><th>GPUs</th>"
            f"<th>NICs</th><th>profile</th></tr></thead><tbody>{''.join(rows)}</tbody></table>{switch_table}")


def _inputs(acceptance: Acceptance) -> str:
    rows = []
    for run in acceptance.runs:
        for name, value in sorted(run.info.inputs.items()):
            rows.append(f"<tr><td>{escape(run.info.run_id)}</td><td>{escape(name)}</td><td class='hash'>{escape(value)}</td></tr>")
    if not rows:
        return "<p>No input hashes recorded (results of an older release).</p>"
    return (f"<table class='grid' id='input-hashes'><thead><tr><th>run</th><th>input</th><th>SHA-256 / version</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>")


def _sign_off(signatories: tuple[tuple[str, str], ...]) -> str:
    people = signatories or (("Integrator", ""), ("Customer", ""))
    rows = "".join(f"<tr><td>{escape(role)}</td><td>{escape(name)}</td><td class='sign'></td><td class='sign'></td></tr>"
                   for role, name in people)
    return (f"<h3>Sign-off</h3><table class='grid signoff' id='sign-off'><thead><tr><th>role</th><th>name</th>"
            f"<th>signature</th><th>date</th></tr></thead><tbody>{rows}</tbody></table>")


def cover(model: ReportModel, acceptance: Acceptance, date: str, banner: list[str],
          signatories: tuple[tuple[str, str], ...], fallback_verdict: str) -> str:
    """Document control, the verdict and totals, scope, profiles and documents, input hashes, sign-off block."""
    counts = model.counts
    verdict = verdict_text(acceptance, fallback_verdict)
    accepted = acceptance.verdict is not None and acceptance.verdict.accepted
    totals = [(o, counts[o], OUTCOME_LABELS[o]) for o in OUTCOMES]
    if acceptance.verdict is not None:
        totals += [("missing", acceptance.verdict.count(MISSING), "required, not run"),
                   ("deviation", len(acceptance.verdict.approved), "approved deviations")]
    boxes = "".join(f"<div class='total o-{o}'><span class='n' id='total-{o}' data-outcome='{o}'>{n}</span>"
                    f"<span class='label'>{escape(label)}</span></div>" for o, n, label in totals)
    profiles = "".join(
        f"<li><b>{escape(p.name)}</b> {escape(p.title)}<ul>"
        + "".join(f"<li>{escape(key)}: {escape(doc)}</li>" for key, doc in sorted(p.documents.items())) + "</ul></li>"
        for p in model.info.profiles) or f"<li>{escape(model.info.profile)}</li>"
    warnings = "".join(f"<p class='incomplete'>{escape(w)}</p>" for w in banner)
    summary = _cover_summary(acceptance)
    return (
        f"<section id='cover'><h1>Fabric acceptance report: {escape(model.info.site)}</h1>{warnings}"
        f"<p id='verdict' class='verdict {'accepted' if accepted else 'rejected'}'>{escape(verdict)}</p>"
        f"<div class='totals'>{boxes}</div>{summary}<table class='facts' id='document-control'>"
        f"{_rows(_document_control(model, acceptance, date), 'cover-')}</table>"
        f"<h3>Scope</h3>{_scope_table(acceptance)}"
        f"<h3>Profiles and their documents</h3><ul class='profiles'>{profiles}</ul>"
        f"<h3>Inputs</h3>{_inputs(acceptance)}{_sign_off(signatories)}</section>"
    )


def _cover_summary(acceptance: Acceptance) -> str:
    """How many required items ran, what is missing (by check), and each approved deviation, on the cover."""
    verdict = acceptance.verdict
    if verdict is None:
        return ""
    missing = "; ".join(f"{check}: {count} ({nodes})" for check, count, nodes in verdict.missing_by_check())
    lines = [f"{verdict.recorded:,} of {verdict.required:,} required items ran" + (f"; missing: {missing}" if missing else "")]
    lines += [f"deviation approved by {d.approved_by} on {d.date}: {d.label}: {d.reason}" for d in verdict.used_deviations]
    return "<ul id='cover-coverage'>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def coverage(acceptance: Acceptance, titles: dict[str, str]) -> str:
    verdict = acceptance.verdict
    if verdict is None:
        return section("coverage", "Coverage of the plan", ["<p>No plan recorded: coverage cannot be checked.</p>"])
    reasons: dict[str, list[str]] = defaultdict(list)
    for finding in verdict.open_findings:
        if finding.state == MISSING and finding.why not in reasons[finding.check_id]:
            reasons[finding.check_id].append(finding.why)
    rows = "".join(
        f"<tr data-check='{escape(check)}' data-missing='{count}'><td>{escape(check)}</td>"
        f"<td>{escape(titles.get(check, ''))}</td><td>{count}</td><td>{escape(nodes)}</td>"
        f"<td>{escape('; '.join(reasons[check][:MISSING_REASONS_SHOWN]))}</td></tr>"
        for check, count, nodes in verdict.missing_by_check())
    summary = (f"<p id='coverage-line'>{verdict.recorded:,} of {verdict.required:,} required items ran "
               f"({verdict.not_applicable:,} of them found not applicable by their check); "
               f"{verdict.count(MISSING):,} missing.</p>")
    table = (f"<table class='grid' id='missing-table'><thead><tr><th>check</th><th>title</th><th>missing</th>"
             f"<th>nodes</th><th>why</th></tr></thead><tbody>{rows}</tbody></table>") if rows else \
        "<p>Every required item was run.</p>"
    return section("coverage", "Coverage of the plan", [summary, table],
                   "The plan lists every item the inventory and the profiles require, written before any selection "
                   "(-k, -m, --lf, --deselect, file arguments); an item deselected, skipped without a documented "
                   "reason, lost with a crashed worker or never reached is missing, and the run is not accepted.")


def deviations(acceptance: Acceptance) -> str:
    verdict = acceptance.verdict
    if not acceptance.deviations:
        return section("deviations", "Approved deviations", ["<p>No deviation was given.</p>"])
    approved: dict[Any, list[str]] = defaultdict(list)
    for finding in verdict.approved if verdict else ():
        approved[finding.deviation].append(f"{finding.item} ({STATE_WORDS[finding.state]})")
    expired = set(verdict.deviations.expired) if verdict else set()
    rows = []
    for d in acceptance.deviations:
        status = "expired" if d in expired else (f"approves {len(approved[d])}" if approved[d] else "matches nothing")
        items = ", ".join(approved[d][:8]) + (f" and {len(approved[d]) - 8} more" if len(approved[d]) > 8 else "")
        rows.append(f"<tr{attrs({'class': 'used' if approved[d] else 'unused', 'data-check': d.check})}>"
                    f"<td>{escape(d.check)}</td><td>{escape(d.where or 'every item')}</td><td>{escape(d.reason)}</td>"
                    f"<td>{escape(d.approved_by)}</td><td>{escape(d.date)}</td><td>{escape(d.expires or '')}</td>"
                    f"<td>{escape(status)}</td><td class='message'>{escape(items)}</td><td>{escape(d.origin)}</td></tr>")
    table = (f"<table class='grid' id='deviation-table'><thead><tr><th>check</th><th>where</th><th>reason</th>"
             f"<th>approved by</th><th>date</th><th>expires</th><th>status</th><th>items</th><th>written in</th></tr>"
             f"</thead><tbody>{''.join(rows)}</tbody></table>")
    return section("deviations", "Approved deviations", [table],
                   "A failed, unmeasured or missing item that an unexpired deviation approves is shown as a deviation, "
                   "never as passed. Expiry is judged on the date the last run ended.")


def retests(acceptance: Acceptance) -> str:
    if not acceptance.retests:
        return section("retests", "Retests", ["<p>No retest merged: the verdict is the acceptance run's.</p>"])
    body = []
    for retest in acceptance.retests:
        counted: dict[str, int] = defaultdict(int)
        for change in retest.changes:
            counted[f"{change.before or 'not run'} -> {change.after}"] += 1
        summary = ", ".join(f"{n} {what}" for what, n in sorted(counted.items())) or "no outcome changed"
        listed = "".join(f"<li>{escape(c.check_id)} {escape(c.item)}: {escape(c.before or 'not run')} -> {escape(c.after)}</li>"
                         for c in retest.changes[:CHANGES_LISTED])
        more = f"<li>and {len(retest.changes) - CHANGES_LISTED} more</li>" if len(retest.changes) > CHANGES_LISTED else ""
        body.append(f"<div class='retest' data-run='{escape(retest.run_id)}'><h3>{escape(retest.run_id)} "
                    f"({escape(retest.started or 'date not recorded')}): {retest.items} items</h3>"
                    f"<p>{escape(summary)}</p><ul class='changes'>{listed}{more}</ul></div>")
    return section("retests", "Retests", body, "Later results of an item replace earlier ones (per NIC pair for "
                   "node-pair items); each retest lists what it changed.")


def node_verdicts(acceptance: Acceptance) -> str:
    verdict, plan = acceptance.verdict, acceptance.plan
    if verdict is None or plan is None:
        return section("nodes", "Verdict per node", ["<p>No plan recorded.</p>"])
    rows = "".join(
        f"<tr{attrs({'class': 'o-passed' if v.accepted else 'o-failed', 'data-node': v.name})}><td>{escape(v.name)}</td>"
        f"<td>{'accepted' if v.accepted else 'not accepted'}</td><td>{v.failed}</td><td>{v.unmeasured}</td>"
        f"<td>{v.missing}</td><td>{v.deviations}</td><td>{escape(', '.join(v.areas))}</td></tr>"
        for v in verdict.node_verdicts([*plan.nodes, *plan.switches]))
    return section("nodes", "Verdict per node", [
        f"<table class='grid' id='node-verdicts'><thead><tr><th>node, switch or cluster</th><th>verdict</th>"
        f"<th>failed</th><th>not measured</th><th>missing</th><th>deviations</th><th>areas</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"],
        "A node is accepted when no required item touching it failed, went unmeasured or is missing (approved "
        "deviations aside); a failed NIC pair counts for both its nodes.")


def not_applicable(acceptance: Acceptance) -> str:
    """What the profiles leave out (``not_applicable``, the catalog's ``applies``) and every skip reason."""
    rows = [(n.check_id, n.reason, n.items, n.nodes, "plan") for n in (acceptance.plan.not_required if acceptance.plan else ())]
    skips: dict[tuple[str, str], list[str]] = defaultdict(list)
    for record in acceptance.records:
        if record.get("outcome") == "skipped":
            reason = str(record.get("message") or "").removeprefix("Skipped: ")
            skips[(str(record.get("check_id")), reason)].append(str(record.get("item") or ""))
    rows += [(check, reason, len(items), fold({n for i in items for n in nodes_of(i)}), "skipped in the run")
             for (check, reason), items in sorted(skips.items())]
    if not rows:
        return section("skips", "Not applicable and skipped", ["<p>Nothing was left out or skipped.</p>"])
    body = "".join(f"<tr><td>{escape(c)}</td><td>{escape(r)}</td><td>{n}</td><td>{escape(nodes)}</td><td>{escape(k)}</td></tr>"
                   for c, r, n, nodes, k in rows)
    return section("skips", "Not applicable and skipped", [
        f"<table class='grid' id='skip-table'><thead><tr><th>check</th><th>reason</th><th>items</th><th>nodes</th>"
        f"<th>where decided</th></tr></thead><tbody>{body}</tbody></table>"],
        "Checks a profile declares not applicable, checks whose catalog entry does not apply to a platform, and "
        "every reason an item was skipped in the run.")



def approved_records(acceptance: Acceptance) -> dict[str, str]:
    """node id -> the deviation approving (part of) that item, for the failure list."""
    verdict = acceptance.verdict
    if verdict is None:
        return {}
    labels = {(f.check_id, f.unit or f.item): f"deviation: {f.deviation.label}, approved by {f.deviation.approved_by} "
              f"on {f.deviation.date}" for f in verdict.approved if f.deviation is not None}
    approved = {}
    for record in acceptance.records:
        label = labels.get(record_key(record))
        if label:
            approved[str(record.get("node_id"))] = label
    return approved
