"""Switch endpoints over a real sshd: the command is sent as is (no shell wrapper), bounded by the channel."""

from __future__ import annotations

import time
from dataclasses import replace

from loopback_sshd import LOOPBACK, LoopbackSshd

from pytest_gpufabric.transport.ssh import SshEndpoint, SshTransport


def switch_endpoint(sshd: LoopbackSshd) -> SshEndpoint:
    base = SshEndpoint(address=str(LOOPBACK), user="root", port=sshd.port, key=str(sshd.client_key),
                       known_hosts=str(sshd.known_hosts), connect_timeout_s=5, sudo=False)
    return replace(base, remote_shell=False)


def test_a_switch_command_arrives_verbatim(sshd: LoopbackSshd) -> None:
    t = SshTransport({"leaf1": switch_endpoint(sshd)})
    try:
        result = t.run("leaf1", 'echo "[$LC_ALL]" "$0"', 10)
    finally:
        t.close()
    assert result.exit_code == 0
    assert result.stdout.startswith("[]")  # no `env LC_ALL=C timeout ... bash -c` wrapper was added


def test_a_switch_command_is_bounded_by_the_channel(sshd: LoopbackSshd) -> None:
    t = SshTransport({"leaf1": switch_endpoint(sshd)})
    started = time.monotonic()
    try:
        result = t.run("leaf1", "sleep 30", 1)
    finally:
        t.close()
    assert result.exit_code == 124 and "timed out" in result.stderr
    assert time.monotonic() - started < 10
