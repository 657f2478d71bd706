"""The preflight's answer: one line per missing prerequisite, with the folded nodeset that lacks it and the checks
it would cost (``perftest (ib_write_bw with --use_cuda): node[017-032]: PERF-001, PERF-003, PERF-005``), then how
to provide each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_gpufabric.discovery.targets import fold
from pytest_gpufabric.preflight.requirements import Prerequisites, Requirement
from pytest_gpufabric.preflight.runner import NodeProbe


@dataclass(frozen=True)
class Finding:
    """A prerequisite (or a node's reachability) missing on ``nodes``, costing ``checks``."""

    what: str
    nodes: tuple[str, ...]
    checks: tuple[str, ...]
    requirement: Requirement | None = None

    def line(self) -> str:
        costs = ", ".join(self.checks) if self.requirement is not None else f"every selected check ({len(self.checks)})"
        return f"{self.what}: {fold(self.nodes)}: {costs}"


def _costs(checks: tuple[str, ...], prerequisites: Prerequisites, facts: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Requirement key -> the checks among ``checks`` it costs on a node with ``facts``."""
    costs: dict[str, list[str]] = {}
    for check in checks:
        for requirement in prerequisites.needs(check, facts):
            costs.setdefault(requirement.key, []).append(check)
    return {key: tuple(dict.fromkeys(found)) for key, found in costs.items()}


def findings(probes: Sequence[NodeProbe], checks: Mapping[str, Sequence[str]], prerequisites: Prerequisites,
             facts: Mapping[str, Mapping[str, str]]) -> list[Finding]:
    """Unreachable or unprobed nodes first (grouped by reason), then each missing requirement in the order of
    the prerequisites file, grouped by the checks it costs. What a requirement costs is worked out once per kind
    of node (its checks and facts), not per node."""
    found: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    requirements: dict[str, Requirement | None] = {}
    costs_by_kind: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], dict[str, tuple[str, ...]]] = {}
    for probe in probes:
        node_checks = tuple(checks[probe.node])
        if probe.error is not None:
            found.setdefault((probe.error, node_checks), []).append(probe.node)
            requirements.setdefault(probe.error, None)
            continue
        kind = (node_checks, tuple(sorted(facts[probe.node].items())))
        if kind not in costs_by_kind:
            costs_by_kind[kind] = _costs(node_checks, prerequisites, facts[probe.node])
        for key, holds in probe.holds.items():
            costs = costs_by_kind[kind].get(key)
            if holds or not costs:
                continue
            requirement = prerequisites.requirements[key]
            found.setdefault((requirement.label, costs), []).append(probe.node)
            requirements[requirement.label] = requirement
    order = {requirement.label: index for index, requirement in enumerate(prerequisites.requirements.values())}
    return sorted((Finding(what, tuple(nodes), costs, requirements[what]) for (what, costs), nodes in found.items()),
                  key=lambda f: (f.requirement is not None, order.get(f.what, -1), f.what, f.nodes))


def how_to_provide(requirement: Requirement) -> str:
    """Where a requirement comes from: packages, else the release to build and how."""
    parts = [f"Debian/Ubuntu: {requirement.debian}" if requirement.debian else "",
             f"RHEL: {requirement.rhel}" if requirement.rhel else "",
             requirement.upstream or "", requirement.build or ""]
    return "; ".join(part for part in parts if part) or "part of the kernel or the base system"


def summary_lines(found: Sequence[Finding], nodes: int, seconds: float, workers: int) -> list[str]:
    lines = [finding.line() for finding in found]
    provided = list(dict.fromkeys(f.requirement for f in found if f.requirement is not None))
    if provided:
        lines += ["", "how to provide them:"] + [f"  {r.label}: {how_to_provide(r)}" for r in provided]
    missing = "nothing missing" if not found else f"{len(found)} missing prerequisite(s)"
    lines.append(f"preflight: {nodes} node(s) probed in {seconds:.1f} s ({min(workers, max(nodes, 1))} at once): {missing}")
    return lines
