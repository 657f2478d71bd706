"""ping parser on real iputils outputs captured on loopback and inside network namespaces."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.ping import parse_ping
from pytest_gpufabric.parsers.registry import PARSERS

Output = Callable[[str, str], str]


def test_registered() -> None:
    assert PARSERS.get("ping").func is parse_ping


@pytest.mark.parametrize(("name", "transmitted", "received", "loss", "ok"), [
    pytest.param("loopback-ok.txt", 4, 4, 0.0, True, id="loopback"),
    pytest.param("netns-veth-ok.txt", 5, 5, 0.0, True, id="veth"),
    pytest.param("netns-mtu9000-jumbo-df.txt", 3, 3, 0.0, True, id="jumbo-mtu9000"),
    pytest.param("netns-routed-ok.txt", 3, 3, 0.0, True, id="routed"),
    pytest.param("netns-mtu1500-jumbo-df.txt", 3, 0, 100.0, False, id="jumbo-local-mtu1500"),
    pytest.param("netns-routed-jumbo-frag-needed.txt", 3, 0, 100.0, False, id="frag-needed"),
    pytest.param("netns-peer-mtu1500-loss.txt", 3, 0, 100.0, False, id="peer-mtu1500"),
    pytest.param("netns-absent-host-loss.txt", 4, 0, 100.0, False, id="absent-host"),
    pytest.param("netns-peer-down-loss.txt", 12, 0, 100.0, False, id="peer-down"),
])
def test_counts_and_loss(output: Output, name: str, transmitted: int, received: int, loss: float, ok: bool) -> None:
    result = parse_ping(output("ping", name)).facts
    assert (result.transmitted, result.received, result.loss_percent) == (transmitted, received, loss)
    assert result.all_replies_received is ok
    assert result.fatal_error is None


def test_rtt_line(output: Output) -> None:
    result = parse_ping(output("ping", "netns-veth-ok.txt")).facts
    assert (result.rtt_min_ms, result.rtt_avg_ms, result.rtt_max_ms, result.rtt_mdev_ms) == (0.037, 0.046, 0.064, 0.009)
    assert (result.destination, result.source, result.payload_bytes) == ("10.99.0.2", "10.99.0.1", 56)


def test_no_rtt_when_nothing_came_back(output: Output) -> None:
    result = parse_ping(output("ping", "netns-peer-down-loss.txt")).facts
    assert result.rtt_avg_ms is None and result.error_messages == ()


@pytest.mark.parametrize(("name", "mtu", "errors", "first_message"), [
    pytest.param("netns-mtu1500-jumbo-df.txt", 1500, 3, "ping: local error: message too long, mtu=1500",
                 id="message-too-long"),
    pytest.param("netns-routed-jumbo-frag-needed.txt", 1500, 3,
                 "From 10.98.1.254 icmp_seq=1 Frag needed and DF set (mtu = 1500)", id="frag-needed"),
    pytest.param("netns-peer-mtu1500-loss.txt", None, 0, "ping: sendmsg: No buffer space available", id="no-buffer"),
])
def test_error_messages_and_path_mtu(output: Output, name: str, mtu: int | None, errors: int,
                                     first_message: str) -> None:
    result = parse_ping(output("ping", name)).facts
    assert result.path_mtu == mtu
    assert result.errors == errors
    assert result.error_messages[0] == first_message
    assert result.payload_bytes == 8972


def test_network_unreachable_is_a_result_not_zero_loss(output: Output) -> None:
    result = parse_ping(output("ping", "netns-network-unreachable.txt")).facts
    assert result.fatal_error == "ping: connect: Network is unreachable"
    assert result.transmitted is None and result.loss_percent is None
    assert result.all_replies_received is False


def test_cut_before_statistics_has_no_counts(output: Output) -> None:
    """A capture cut before its statistics: the replies seen say nothing of loss; the counts are None (the check
    says "not measured"), never 0 % loss."""
    text = output("ping", "loopback-ok.txt")
    result = parse_ping(text[: text.index("---")]).facts
    assert result.destination == "127.0.0.1" and result.transmitted is None and result.loss_percent is None
    assert result.fatal_error is None and not result.all_replies_received


def test_cut_after_statistics_title(output: Output) -> None:
    text = output("ping", "loopback-ok.txt")
    result = parse_ping(text[: text.index("4 packets transmitted")]).facts
    assert result.loss_percent is None and result.fatal_error is None


def test_cut_before_rtt(output: Output) -> None:
    text = output("ping", "loopback-ok.txt")
    result = parse_ping(text[: text.index("rtt min")]).facts
    assert (result.transmitted, result.received, result.loss_percent, result.rtt_avg_ms) == (4, 4, 0.0, None)


def test_more_received_than_sent_is_unread(output: Output, unread_line) -> None:
    parsed = parse_ping(output("ping", "loopback-ok.txt").replace("4 received", "9 received"))
    unread_line(parsed, "9 packets received out of 4 transmitted")
    assert parsed.facts.loss_percent is None and parsed.facts.rtt_avg_ms is not None


@pytest.mark.parametrize("text", ["", "\n\n", "PING\n"], ids=["empty", "blank", "banner-word"])
def test_not_ping(text: str) -> None:
    with pytest.raises(ParseError):
        parse_ping(text).facts


@given(text=st.lists(st.sampled_from(list("0123456789./:%,+ \n") + [
    "--- 10.0.0.1 ping statistics ---\n", "packets transmitted, ", " received, ", "% packet loss",
    "rtt min/avg/max/mdev = ", "ping: ", "From 10.0.0.1 ", "mtu=", " errors"]), max_size=50).map("".join))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parse_ping(text).facts
    except ParseError:
        pass
