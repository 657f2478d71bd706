"""fping parser on real fping 5.1 outputs captured in network namespaces, and on LibreNMS's test outputs."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.fping import parse_fping
from pytest_gpufabric.parsers.registry import PARSERS

Output = Callable[[str, str], str]


def test_registered() -> None:
    assert PARSERS.get("fping").func is parse_fping


@pytest.mark.parametrize(("name", "expected"), [
    pytest.param("ok.txt", {"172.30.0.2": (5, 5), "172.30.1.2": (5, 5), "172.30.0.3": (5, 5)}, id="ok"),
    pytest.param("jumbo-ok.txt", {"172.30.0.2": (3, 3), "172.30.0.3": (3, 3)}, id="jumbo-ok"),
    pytest.param("absent-host.txt", {"172.30.0.2": (3, 3), "172.30.0.77": (3, 0)}, id="absent-padded"),
    pytest.param("peer-link-down.txt", {"172.30.0.2": (3, 0), "172.30.1.2": (3, 3), "172.30.0.3": (3, 3)}, id="link-down"),
    pytest.param("local-mtu1500-jumbo-df.txt", {"172.30.0.2": (3, 0), "172.30.0.3": (3, 0)}, id="local-mtu1500"),
    pytest.param("peer-mtu1500-jumbo-df.txt", {"172.30.0.2": (3, 0), "172.30.0.3": (3, 3)}, id="peer-mtu1500"),
    pytest.param("local-nic-down.txt", {"172.30.0.2": (3, 0), "172.30.0.3": (3, 0)}, id="nic-down"),
    pytest.param("no-route.txt", {"10.99.1.5": (3, 0)}, id="no-route"),
    pytest.param("timeout-over-period.txt", {"172.30.0.2": (3, 3)}, id="timeout-over-period"),
    pytest.param("librenms-partial-loss.txt", {"192.168.1.7": (5, 3)}, id="librenms-partial"),
    pytest.param("librenms-duplicates.txt", {"192.168.1.2": (3, 3)}, id="librenms-duplicates"),
])
def test_every_target_sent_and_received(output: Output, name: str, expected: dict[str, tuple[int, int]]) -> None:
    result = parse_fping(output("fping", name))
    assert {target: (found.sent, found.received) for target, found in result.targets.items()} == expected
    assert result.unread == ()
    for found in result.targets.values():
        assert found.loss_percent == (found.sent - found.received) * 100 // found.sent
        assert (found.rtt_avg_ms is None) == (found.received == 0)


def test_round_trips_and_duplicates_as_messages(output: Output) -> None:
    result = parse_fping(output("fping", "librenms-duplicates.txt"))
    target = result.targets["192.168.1.2"]
    assert (target.rtt_min_ms, target.rtt_avg_ms, target.rtt_max_ms) == (0.68, 0.79, 0.91)
    assert result.messages == ("192.168.1.2 : duplicate for [0], 84 bytes, 0.91 ms",
                               "192.168.1.2 : duplicate for [0], 84 bytes, 0.95 ms")


@pytest.mark.parametrize("line", [
    "172.30.0.2 : xmt/rcv/%loss = 3/4/0%, min/avg/max = 0.1/0.1/0.1",  # more received than sent
    "172.30.0.2 : xmt/rcv/%loss = 3/3/50%, min/avg/max = 0.1/0.1/0.1",  # loss not that of the counts
    "172.30.0.2 : xmt/rcv/%loss = 3/0/100%, min/avg/max = 0.1/0.1/0.1",  # times without a reply
    "172.30.0.2 : xmt/rcv/%loss = 3/3/0%",  # replies without times
    "172.30.0.2 : xmt/rcv/%loss = 3/3/0%, min/avg/max = 0.1/0.1",  # cut
])
def test_a_line_that_contradicts_itself_costs_only_its_own_target(line: str) -> None:
    result = parse_fping(f"{line}\n172.30.0.3 : xmt/rcv/%loss = 3/3/0%, min/avg/max = 0.1/0.2/0.3\n")
    assert list(result.targets) == ["172.30.0.3"]
    assert result.unread == ((1, line),)


def test_a_target_named_twice_keeps_neither_line() -> None:
    text = ("172.30.0.2 : xmt/rcv/%loss = 3/3/0%, min/avg/max = 0.1/0.1/0.1\n"
            "172.30.0.3 : xmt/rcv/%loss = 3/0/100%\n"
            "172.30.0.2 : xmt/rcv/%loss = 3/0/100%\n")
    result = parse_fping(text)
    assert list(result.targets) == ["172.30.0.3"] and [number for number, _ in result.unread] == [1, 3]


def test_errors_are_messages_and_nothing_understood_is_refused() -> None:
    result = parse_fping("ICMP Host Unreachable from 172.30.0.254 for ICMP Echo sent to 172.30.0.9\n"
                         "172.30.0.9 : xmt/rcv/%loss = 1/0/100%\n")
    assert result.messages and result.targets["172.30.0.9"].received == 0
    with pytest.raises(ParseError):
        parse_fping("Segmentation fault\n")
    with pytest.raises(ParseError):
        parse_fping("")
