"""NET-001 / NET-002 / HOST-008: the ping commands of a node pair and the judging of their results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_gpufabric.commands import sh
from pytest_gpufabric.parsers.ping import PingResult

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Node

PING_COUNT = 5  # packets per ping: S0 2.4.3 pings each peer NIC; a handful shows loss without loading the NIC
PING_DEADLINE_S = 10  # -w: ping ends after this many seconds whatever happens
JUMBO_PAYLOAD = 8972  # S0 2.6 item 11: 9000 MTU - 20 (IPv4) - 8 (ICMP)


@dataclass(frozen=True)
class NicAddress:
    """One NIC's name (``node01/bnxt_re0``) and IPv4 address."""

    name: str
    address: str


def nic_addresses(node: Node) -> list[NicAddress]:
    return [NicAddress(f"{node.name}/{nic.name}", str(nic.address)) for nic in node.nics]


def ping_command(source: str, destination: str, count: int = PING_COUNT) -> str:
    """``ping -I <src ip> -c N <dst ip>`` (S0 2.4.3), bounded by a deadline."""
    return sh("ping", "-I", source, "-c", count, "-w", PING_DEADLINE_S, destination)


def jumbo_ping_command(source: str, destination: str, count: int = PING_COUNT) -> str:
    """``ping -I <src> -M do -s 8972 -c N <dst>``: a 9000-byte packet with fragmentation forbidden (S0 2.6)."""
    return sh("ping", "-I", source, "-M", "do", "-s", JUMBO_PAYLOAD, "-c", count, "-w", PING_DEADLINE_S, destination)


def ssh_probe_command(destination: str) -> str:
    """HOST-008: a non-interactive ssh (no password prompt possible) that runs ``true`` on the peer."""
    return sh("ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", destination, "true")


def loss_percent(result: PingResult) -> float | None:
    """Loss of one ping; a ping that could not send at all ("Network is unreachable") counts as 100 %; None (not
    measured) when the output has no statistics line that was understood."""
    if result.fatal_error is not None:
        return 100.0
    return result.loss_percent


def describe(result: PingResult) -> str:
    """A short explanation of a ping result for messages."""
    if result.fatal_error:
        return result.fatal_error
    text = f"{result.received}/{result.transmitted} replies"
    if result.path_mtu is not None:
        text += f", path MTU {result.path_mtu}"
    elif result.error_messages:
        text += f", {result.error_messages[0]}"
    return text
