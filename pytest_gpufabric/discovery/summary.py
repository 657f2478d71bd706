"""The end of a discovery: one table row per node, then the findings with their nodes folded."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_gpufabric.discovery.assemble import DiscoveredSite, Finding
from pytest_gpufabric.discovery.baseline import Reading, profile_verdict
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.discovery.runner import NodeOutcome
from pytest_gpufabric.discovery.targets import fold

HEADER = ("node", "status", "GPUs", "NICs", "paired", "rails", "platform")


def _rails(rails: list[int]) -> str:
    return fold(f"r{rail}" for rail in sorted(set(rails))) if rails else "-"


def node_rows(outcomes: Sequence[NodeOutcome], site: DiscoveredSite | None) -> list[tuple[str, ...]]:
    written = {node.name: node for node in site.nodes} if site else {}
    rows = []
    for outcome in outcomes:
        node = written.get(outcome.target.name)
        if node is None:
            rows.append((outcome.target.name, "unreachable" if outcome.error else "not written", "-", "-", "-", "-", "-"))
            continue
        paired = sum(1 for nic in node.nics if nic.gpu is not None)
        platform = f"{node.platform.gpu_vendor} {node.platform.gpu_model} {node.platform.deployment}"
        if node.platform.deployment == "guest" and outcome.facts is not None:
            platform += f" ({outcome.facts.platform.virtualization})"
        rows.append((node.name, "ok", str(len(node.gpus)), str(len(node.nics)), f"{paired}/{len(node.nics)}",
                     _rails([nic.rail for nic in node.nics]), platform))  # fmt: skip
    return rows


def table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in [HEADER, *rows]) for i in range(len(HEADER))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [HEADER, *rows])


def folded_findings(findings: Sequence[Finding]) -> list[str]:
    """``<nodes>: <message>`` with the nodes of one message folded, in the order messages first appear."""
    by_message: dict[str, list[str]] = {}
    for finding in findings:
        by_message.setdefault(finding.message, []).append(finding.node)
    return [f"{fold(nodes)}: {message}" for message, nodes in by_message.items()]


def unreachable_lines(outcomes: Sequence[NodeOutcome]) -> list[str]:
    by_reason: dict[str, list[str]] = {}
    for outcome in outcomes:
        if outcome.error:
            by_reason.setdefault(outcome.error, []).append(outcome.target.name)
    return [f"{fold(nodes)}: {reason}" for reason, nodes in by_reason.items()]


def summary_text(outcomes: Sequence[NodeOutcome], site: DiscoveredSite | None) -> str:
    lines = [table(node_rows(outcomes, site))]
    unreachable = unreachable_lines(outcomes)
    if unreachable:
        lines += ["", "not discovered (left out of the file):", *(f"  {line}" for line in unreachable)]
    findings = folded_findings(site.findings) if site else []
    if findings:
        lines += ["", "disagree with the majority or need a person (written as found):", *(f"  {line}" for line in findings)]
    return "\n".join(lines)


def baseline_table(readings: Sequence[Reading], profile: Profile) -> str:
    """check, value name, the node's value, the profile's (``-`` where the profile does not judge it)."""
    rows = []
    for r in readings:
        base = profile.expectations.get(r.check, {}).get(r.name)
        expected = "-" if base is None else base.describe()
        rows.append((r.check, r.name, str(r.value), expected, profile_verdict(r, profile) if base else "not judged"))
    header = ("check", "value", "node", f"profile {profile.name}", "")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header, *rows])
