"""The README's prerequisites tables, written from the prerequisites file: per check what it needs on the nodes
and the packages that provide it, then how to build what the distributions do not carry as the checks need it."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_gpufabric.preflight.requirements import Need, Prerequisites, Requirement

CONDITION_WORDS = {("gpu_vendor", "amd"): "AMD", ("gpu_vendor", "nvidia"): "NVIDIA",
                   ("launcher", "mpirun"): "mpirun", ("launcher", "srun"): "srun"}


def _need_text(need: Need, requirement: Requirement) -> str:
    when = ", ".join(CONDITION_WORDS.get(condition, "=".join(condition)) for condition in need.when)
    return f"{requirement.label} ({when})" if when else requirement.label


def _cell(values: Sequence[str]) -> str:
    return "; ".join(dict.fromkeys(value for value in values if value)) or "-"


def prerequisites_table(prerequisites: Prerequisites, checks: Sequence[str]) -> str:
    """Two Markdown tables: per check (in ``checks`` order), then the builds (upstream releases)."""
    lines = ["| check | needs on every node it runs on | Debian/Ubuntu | RHEL | upstream release |",
             "|---|---|---|---|---|"]
    for check in checks:
        needs = prerequisites.checks.get(check, ())
        requirements = [prerequisites.requirements[need.key] for need in needs]
        lines.append("| " + " | ".join([
            check,
            _cell([_need_text(need, prerequisites.requirements[need.key]) for need in needs]) if needs else "nothing (switch side, or shell built-ins)",
            _cell([r.debian or "" for r in requirements]),
            _cell([r.rhel or "" for r in requirements]),
            _cell([r.upstream or "" for r in requirements]),
        ]) + " |")
    built = [r for r in prerequisites.requirements.values() if r.upstream and r.build]
    lines += ["", "| requirement | upstream release | how to build it for the checks |", "|---|---|---|"]
    lines += [f"| {r.label} | {r.upstream} | {r.build} |" for r in built]
    return "\n".join(lines)
