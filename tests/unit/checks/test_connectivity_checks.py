"""Ping / ssh command lines and ping loss judging on real ping outputs."""

from __future__ import annotations

from pathlib import Path

from pytest_gpufabric.checks.connectivity import (
    describe,
    jumbo_ping_command,
    loss_percent,
    ping_command,
    ssh_probe_command,
)
from pytest_gpufabric.parsers.ping import parse_ping

PING = Path(__file__).resolve().parents[3] / "fixtures" / "outputs" / "ping"


def test_commands_match_the_documents() -> None:
    assert ping_command("192.168.1.1", "192.168.1.2") == "ping -I 192.168.1.1 -c 5 -w 10 192.168.1.2"
    assert jumbo_ping_command("192.168.1.1", "192.168.1.2").startswith("ping -I 192.168.1.1 -M do -s 8972 ")
    assert ssh_probe_command("node02") == "ssh -o BatchMode=yes -o ConnectTimeout=10 node02 true"


def test_loss_of_real_outputs() -> None:
    assert loss_percent(parse_ping((PING / "netns-routed-ok.txt").read_text()).facts) == 0.0
    assert loss_percent(parse_ping((PING / "netns-peer-mtu1500-loss.txt").read_text()).facts) == 100.0
    unreachable = parse_ping((PING / "netns-network-unreachable.txt").read_text()).facts
    assert loss_percent(unreachable) == 100.0 and "unreachable" in describe(unreachable).lower()
