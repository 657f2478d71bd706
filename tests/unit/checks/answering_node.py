"""A check context whose node answers each command from a table, as a node without some tools would."""

from __future__ import annotations

from pathlib import Path

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.expectations import load_profile
from pytest_gpufabric.transport.base import CommandResult

REPO = Path(__file__).resolve().parents[3]
NOT_FOUND = "bash: line 1: {}: command not found\n"


def context(answers: dict[str, tuple[str, str, int]]) -> CheckContext:
    """A context whose node answers each command from ``answers`` (stdout, stderr, exit status)."""

    def run(node: str, command: str, timeout_s: float | None, cached: bool) -> CommandResult:
        stdout, stderr, code = answers.get(command, ("", NOT_FOUND.format(command.split()[0]), 127))
        return CommandResult(node, command, stdout, stderr, code, 0.0)

    return CheckContext(load_catalog().get("DRV-007"), "h200", load_profile(REPO / "thresholds", "hgx-h100-thor2"), run)
