"""Each fault breaks what it should, is visible where a check would look, and is undone by revert."""

from __future__ import annotations

import threading
import time

import paramiko
import pytest
from labkit import JUMBO_PAYLOAD, link_state, ping, route_get

from pytest_gpufabric.lab import Faults, Lab

pytestmark = pytest.mark.lab

KILL_AFTER_S = 0.5


def test_mtu_1500_on_one_nic_breaks_jumbo_ping_both_ways(
    lab: Lab, faults: Faults
) -> None:
    node1, node2 = lab.nodes[0], lab.nodes[1]
    a, b = str(node1.nic(0).ipv4.ip), str(node2.nic(0).ipv4.ip)
    assert ping(lab, 0, a, b, payload=JUMBO_PAYLOAD).returncode == 0
    with faults.mtu(node=1, rail=0, mtu=1500):
        assert link_state(lab, 1, node2.nic(0).netdev)["mtu"] == 1500
        outgoing = ping(lab, 1, b, a, payload=JUMBO_PAYLOAD)
        assert outgoing.returncode != 0
        assert "message too long" in (outgoing.stdout + outgoing.stderr).lower()
        assert (
            ping(lab, 0, a, b, payload=JUMBO_PAYLOAD).returncode != 0
        )  # dropped at the 1500 NIC
        assert ping(lab, 0, a, b).returncode == 0  # small packets still pass
    assert ping(lab, 0, a, b, payload=JUMBO_PAYLOAD).returncode == 0


@pytest.mark.parametrize("side", ["switch", "node"])
def test_a_rail_link_down_makes_that_nic_unreachable(
    lab: Lab, faults: Faults, side: str
) -> None:
    victim = lab.nodes[2].nic(1)
    other_rail, same_rail = lab.nodes[0].nic(0), lab.nodes[0].nic(1)
    assert ping(lab, 0, str(other_rail.ipv4.ip), str(victim.ipv4.ip)).returncode == 0
    fault = faults.link_down(node=2, rail=1, side=side)  # type: ignore[arg-type]
    state = link_state(lab, 2, victim.netdev)
    assert "LOWER_UP" not in state["flags"]  # type: ignore[operator]
    assert ping(lab, 0, str(other_rail.ipv4.ip), str(victim.ipv4.ip)).returncode != 0
    assert ping(lab, 0, str(same_rail.ipv4.ip), str(victim.ipv4.ip)).returncode != 0
    assert (
        ping(
            lab, 0, str(other_rail.ipv4.ip), str(lab.nodes[2].nic(0).ipv4.ip)
        ).returncode
        == 0
    )  # rail 0 fine
    fault.revert()
    assert ping(lab, 0, str(other_rail.ipv4.ip), str(victim.ipv4.ip)).returncode == 0


@pytest.mark.parametrize(("rail", "other_rail"), [(0, 1), (1, 0)])
def test_a_wrong_rule_sends_the_nic_traffic_through_another_table(
    lab: Lab, faults: Faults, rail: int, other_rail: int
) -> None:
    """By default the rule points at the next rail's table (the last rail wraps to the first)."""
    node = lab.nodes[3]
    nic, other = node.nic(rail), node.nic(other_rail)
    target = str(lab.nodes[0].nic(1).ipv4.ip)
    with faults.wrong_rule(node=3, rail=rail):
        rules = lab.exec_in(3, ["ip", "rule", "show"]).stdout
        assert f"from {nic.ipv4.ip} lookup {other.route_table}" in rules
        assert f"from {nic.ipv4.ip} lookup {nic.route_table}" not in rules
        route = route_get(lab, 3, target, str(nic.ipv4.ip))
        assert (route["dev"], route["table"]) == (other.netdev, str(other.route_table))
    route = route_get(lab, 3, target, str(nic.ipv4.ip))
    assert (route["dev"], route["table"]) == (nic.netdev, str(nic.route_table))


def test_a_rule_to_an_empty_table_lets_the_traffic_leave_through_another_nic(
    lab: Lab, faults: Faults
) -> None:
    """The lookup falls through to the main table, whose connected route for the target's rail belongs
    to the node's other NIC: the packet leaves through the wrong NIC (what per-NIC tables prevent)."""
    node = lab.nodes[1]
    source, target = node.nic(1), lab.nodes[0].nic(0)
    with faults.wrong_rule(node=1, rail=1, table=150):
        route = route_get(lab, 1, str(target.ipv4.ip), str(source.ipv4.ip))
        assert route["dev"] == node.nic(0).netdev
        assert "table" not in route and "gateway" not in route
    route = route_get(lab, 1, str(target.ipv4.ip), str(source.ipv4.ip))
    assert (route["dev"], route["gateway"]) == (source.netdev, str(source.gateway))


def test_a_stopped_sshd_refuses_connections_until_reverted(
    lab: Lab, faults: Faults
) -> None:
    with faults.stop_sshd(node=0):
        assert lab.sshd(0).pid is None
        done = lab.ssh(0, "true")
        assert done.returncode == 255
        assert "Connection refused" in done.stderr
    assert lab.ssh(0, "hostname").stdout.strip() == lab.nodes[0].name


def test_killing_sshd_mid_command_ends_the_session(lab: Lab, faults: Faults) -> None:
    client = lab.paramiko_client(1)
    try:
        _, stdout, _ = client.exec_command("echo started; sleep 30; echo finished")
        assert stdout.readline().strip() == "started"
        killer = threading.Timer(KILL_AFTER_S, faults.kill_sshd, kwargs={"node": 1})
        started = time.monotonic()
        killer.start()
        status = (
            stdout.channel.recv_exit_status()
        )  # -1: the channel closed without an exit status
        elapsed = time.monotonic() - started
        killer.join()
    finally:
        client.close()
    assert status == -1
    assert elapsed < 10
    assert "finished" not in stdout.read().decode(errors="replace")
    with pytest.raises(paramiko.ssh_exception.NoValidConnectionsError):
        lab.paramiko_client(1)
    faults.revert_all()
    assert lab.ssh(1, "hostname").stdout.strip() == lab.nodes[1].name


def test_a_changed_host_key_is_refused(lab: Lab, faults: Faults) -> None:
    with faults.change_host_key(node=2):
        done = lab.ssh(2, "true")
        assert done.returncode == 255
        assert "REMOTE HOST IDENTIFICATION HAS CHANGED" in done.stderr
        with pytest.raises(paramiko.BadHostKeyException):
            lab.paramiko_client(2)
    assert lab.ssh(2, "hostname").stdout.strip() == lab.nodes[2].name
