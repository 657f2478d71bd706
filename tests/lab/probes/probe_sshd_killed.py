"""Probe (not a catalog check): holds a command open on the node named by LAB_PROBE_NODE until the test
kills that node's sshd (with its sessions); the marker file in the node's home tells the test when.

Given explicitly on the command line by tests/lab/test_lab_acceptance.py; its file name keeps pytest's
collection of tests/lab from picking it up. It borrows HOST-002's id because the plugin parametrizes
only checks with a catalog id."""

from __future__ import annotations

import os

import pytest

from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.targets import NodeTarget

MARKER = "probe-waiting"
HELD_COMMAND = f"touch /root/{MARKER} && sleep 60"
TIMEOUT_S = 90.0


@pytest.mark.check("HOST-002")
def test_probe_session_while_sshd_is_killed(
    node: NodeTarget, gpufabric: CheckContext
) -> None:
    if node.id != os.environ["LAB_PROBE_NODE"]:
        pytest.skip("the probe runs on one node")
    result = gpufabric.run(node.id, HELD_COMMAND, timeout_s=TIMEOUT_S)
    if result.exit_code != 0:
        pytest.fail(
            f"the held session ended with exit {result.exit_code}: {result.stderr.strip()[:200]}"
        )
