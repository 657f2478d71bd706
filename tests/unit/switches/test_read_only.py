"""Only read-only command forms reach a switch: the allow-list per OS and the transport guard."""

from __future__ import annotations

import pytest

from pytest_gpufabric.switches.readonly import ConfigurationRefused, is_read_only
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.switch_guard import ReadOnlySwitches

# Configuration commands of each OS as their documents write them (S0 2.5.1-2.5.3, S3 "PFC Configuration",
# "ECN Configuration", "PFC Watchdog"), and ways of smuggling one behind a read.
CONFIG_COMMANDS = {
    "arista": [
        "configure terminal", "configure", "interface ethernet 3/1/1", "priority-flow-control mode on",
        "priority-flow-control priority 3 no-drop", "priority-flow-control pause watchdog action drop",
        "random-detect ecn count", "hardware counter feature ecn out", "write memory", "copy running-config startup-config",
        "show running-config; configure", "show running-config\nconfigure terminal", "show version | json && reload",
        "show interfaces | json | bash sudo reboot", "bash sudo ip link set Ethernet1 down", "reload now",
        "clear counters", "show running-config | redirect flash:x", "show interfaces | tee flash:x",
    ],
    "sonic": [
        "sudo config interface startup Ethernet0", "config qos reload", "sudo config save -y", "config load /tmp/x.json -y",
        "sonic-cfggen -d --print-data > /etc/sonic/config_db.json", "sonic-cfggen -j x.json --write-to-db",
        "show interfaces status; sudo reboot", "cat /etc/sonic/config_db.json | sudo tee /tmp/x", "sonic-clear counters",
        "sudo pfcwd start --action drop ports all", "redis-cli -n 4 hset 'PORT|Ethernet0' mtu 1500",
    ],
    "juniper": [
        "configure", "edit", "set class-of-service forwarding-classes class NO-LOSS queue-num 4", "commit",
        "delete interfaces et-0/0/0", "show configuration | display set; commit", "request system reboot",
        "clear interfaces statistics all", "show configuration | save /var/tmp/x", "start shell",
        "show configuration | display set | save /var/tmp/x", "show interfaces | display set; commit",
        "request pfe execute command \"show cos\" target fpc0", "show configuration | compare rollback 1",
    ],
}
READS = {
    "arista": ["show running-config", "show interfaces | json", "show interfaces status | json",
               "show interfaces counters discards | json", "show priority-flow-control counters | json",
               "show priority-flow-control", "show priority-flow-control interfaces Ethernet1/1 status"],
    "sonic": ["sonic-cfggen -d --print-data", "cat /etc/sonic/config_db.json", "show interfaces status",
              "show interfaces counters", "show pfc counters", "show pfcwd stats"],
    "juniper": ["show configuration class-of-service | display json", "show interfaces extensive et-0/0/0 | display json",
                "show configuration", "show configuration | display set", "show interfaces extensive",
                "show interfaces queue et-0/0/1:0", "show class-of-service interface et-0/0/1:0",
                "show class-of-service congestion-notification", "show interfaces et-0/0/0 extensive"],
}


@pytest.mark.parametrize(("switch_os", "command"), [(o, c) for o, cs in CONFIG_COMMANDS.items() for c in cs])
def test_configuration_commands_are_not_read_only(switch_os: str, command: str) -> None:
    assert not is_read_only(switch_os, command)


@pytest.mark.parametrize(("switch_os", "command"), [(o, c) for o, cs in READS.items() for c in cs])
def test_documented_reads_are_read_only(switch_os: str, command: str) -> None:
    assert is_read_only(switch_os, command)


def test_an_unknown_os_reads_nothing() -> None:
    assert not is_read_only("ios", "show version")


class Recorder:
    """A transport that records what reached it (the guard's inner side)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None, guard: object = None) -> CommandResult:
        self.sent.append((node, command))
        return CommandResult(node, command, "", "", 0, 0.0)

    def close(self) -> None:
        pass


def test_the_guard_refuses_before_anything_is_sent() -> None:
    inner = Recorder()
    guard = ReadOnlySwitches(inner, {"leaf1": "arista"})
    with pytest.raises(ConfigurationRefused, match=r"leaf1: refusing to send 'configure terminal'"):
        guard.run("leaf1", "configure terminal", 10)
    guard.run("leaf1", "show running-config", 10)
    guard.run("node01", "cat /etc/bnxt_re/bnxt_re.conf", 10)  # nodes are not switches: their checks decide
    assert inner.sent == [("leaf1", "show running-config"), ("node01", "cat /etc/bnxt_re/bnxt_re.conf")]


def test_switches_are_reached_over_ssh_with_host_keys_checked_and_without_sudo(demo_inventory) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace as copy_with

    from pytest_gpufabric.inventory import SshConfig, Switch
    from pytest_gpufabric.transport.factory import ssh_endpoint

    switch = Switch("leaf1", "arista", "10.10.0.2", SshConfig(user="admin", sudo=True, known_hosts="~/.ssh/known_hosts"))
    endpoint = ssh_endpoint(switch, verify_host_keys=True)
    assert (endpoint.user, endpoint.sudo, endpoint.remote_shell, endpoint.verify_host_key) == ("admin", False, False, True)
    node_endpoint = ssh_endpoint(copy_with(demo_inventory.nodes[0]), verify_host_keys=True)
    assert node_endpoint.remote_shell
