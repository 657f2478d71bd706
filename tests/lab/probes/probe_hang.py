"""Probe (not a catalog check): a command that hangs past its timeout on the node named by LAB_PROBE_NODE.

Given explicitly on the command line by tests/lab/test_lab_acceptance.py; its file name keeps pytest's
collection of tests/lab from picking it up. It borrows HOST-002's id because the plugin parametrizes
only checks with a catalog id."""

from __future__ import annotations

import os

import pytest

from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.targets import NodeTarget

HANGING_COMMAND = (
    "sleep 617"  # an odd length, so the test can find a leftover by its command line
)
TIMEOUT_S = 1.0


@pytest.mark.check("HOST-002")
def test_probe_command_hangs_past_its_timeout(
    node: NodeTarget, gpufabric: CheckContext
) -> None:
    if node.id != os.environ["LAB_PROBE_NODE"]:
        pytest.skip("the probe runs on one node")
    result = gpufabric.run(node.id, HANGING_COMMAND, timeout_s=TIMEOUT_S)
    if result.exit_code != 0:
        pytest.fail(
            f"{HANGING_COMMAND!r} ended with exit {result.exit_code} after {result.duration_s:g} s"
        )
