"""SSH commands per second on the lab: one reused paramiko connection vs a new connection per command.

Run with ``-s`` to see the numbers; the test fails if reusing a connection is not faster."""

from __future__ import annotations

import time

import pytest

from pytest_gpufabric.lab import Lab

pytestmark = pytest.mark.lab

REUSED_COMMANDS = 50
NEW_CONNECTION_COMMANDS = 10


def _run(client: object, command: str) -> int:
    _, stdout, _ = client.exec_command(command)  # type: ignore[attr-defined]
    stdout.read()
    return int(stdout.channel.recv_exit_status())


def test_reused_connection_outpaces_a_connection_per_command(
    lab: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    node = lab.nodes[0].name
    client = lab.paramiko_client(node)
    try:
        started = time.perf_counter()
        statuses = [_run(client, "true") for _ in range(REUSED_COMMANDS)]
        reused_rate = REUSED_COMMANDS / (time.perf_counter() - started)
    finally:
        client.close()
    assert statuses == [0] * REUSED_COMMANDS

    started = time.perf_counter()
    for _ in range(NEW_CONNECTION_COMMANDS):
        fresh = lab.paramiko_client(node)
        try:
            assert _run(fresh, "true") == 0
        finally:
            fresh.close()
    fresh_rate = NEW_CONNECTION_COMMANDS / (time.perf_counter() - started)

    started = time.perf_counter()
    for _ in range(NEW_CONNECTION_COMMANDS):
        assert lab.ssh(node, "true").returncode == 0
    openssh_rate = NEW_CONNECTION_COMMANDS / (time.perf_counter() - started)

    with capsys.disabled():
        print(
            f"\nssh commands/s on {node}: paramiko reused connection {reused_rate:.1f}, "
            f"paramiko new connection per command {fresh_rate:.1f}, /usr/bin/ssh per command {openssh_rate:.1f}"
        )
    assert reused_rate > fresh_rate
