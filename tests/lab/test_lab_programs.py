"""The reader of programs in command lines, and the cross-check of a recording against the lab's preflight
list, on commands as the acceptance checks send them (no lab needed)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.lab.preflight import required_tools
from pytest_gpufabric.recording.nodefile import Episode, render_node_file
from pytest_gpufabric.transport.bounded import bounded_command
from tests.lab.programs import programs_of, recorded_commands, unlisted_programs

# Commands of a recorded acceptance run on a 2-node, 2-rail lab (node01), as its node file holds them.
LAB_COMMANDS = (
    "cat /proc/cmdline",
    "dmesg",
    "ethtool benic1p1",
    "ip -o -4 addr show",
    "ping -I 172.30.0.1 -M do -s 8972 -c 5 -w 10 172.30.0.2",
    "ssh -o BatchMode=yes -o ConnectTimeout=10 10.251.1.2 true",
    "sysctl net.ipv4.conf.all.arp_ignore net.ipv4.conf.all.arp_announce",
)


@pytest.mark.parametrize(
    ("command", "programs"),
    [
        ("ethtool benic1p1", {"ethtool"}),
        ("/usr/sbin/ethtool -i eth0 | grep driver", {"ethtool", "grep"}),
        ("LC_ALL=C ip -j link; ps -e && dmesg || true", {"ip", "ps", "dmesg"}),
        ("sh -c 'mount -t tmpfs x /run && exec /usr/sbin/sshd -D'", {"sh", "mount", "sshd"}),
        ("if ethtool eth0; then cat /x; fi", {"ethtool", "cat"}),
        ("ssh -o BatchMode=yes -p 22 -i key 10.0.0.2 'ip -o link'", {"ssh", "ip"}),
        ("sudo -n env LC_ALL=C timeout --kill-after=5s 30s bash -c 'niccli -i 1 show'",
         {"sudo", "env", "timeout", "bash", "niccli"}),
        ("for dev in a b\ndo ethtool $dev\ndone", {"ethtool"}),
    ],
)
def test_programs_of_a_command_line(command: str, programs: set[str]) -> None:
    assert programs_of(command) == programs


def test_bounded_commands_start_the_wrappers_and_the_command() -> None:
    assert programs_of(bounded_command("ethtool benic1p1", 30)) == {"env", "timeout", "bash", "ethtool"}


def _lab_recording() -> dict[str, str]:
    episode = Episode(exit_code=0, duration_s=0.01, item=None, run_id=None, stdout="", stderr="")
    return {"node01": render_node_file("node01", {command: [episode] for command in LAB_COMMANDS})}


def test_every_program_of_the_lab_commands_is_in_the_preflight_list() -> None:
    commands = [bounded_command(c, 30) for c in recorded_commands(_lab_recording())]
    assert unlisted_programs(commands, required_tools()) == set()


@pytest.mark.parametrize("dropped", ["ethtool", "ping", "ip", "ssh", "timeout", "dmesg"])
def test_a_program_dropped_from_the_list_is_reported(dropped: str) -> None:
    commands = [bounded_command(c, 30) for c in recorded_commands(_lab_recording())]
    listed = {tool for tool in required_tools() if tool != dropped}
    assert unlisted_programs(commands, listed) == {dropped}
