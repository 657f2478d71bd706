"""ping (iputils): packets sent and received, loss, round-trip times and the errors ping printed.

A ping that could not send at all ("ping: connect: Network is unreachable") prints no statistics; it is
reported as a result with ``fatal_error`` set and no counts, never as zero loss.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "ping"

BANNER = re.compile(r"^PING (\S+) \((\S+)\)(?: from (\S+)(?: \S+)?)?\s*:?\s*(\d+)\((\d+)\) bytes of data\.")
STATISTICS_TITLE = re.compile(r"^--- (\S+) ping statistics ---$")
COUNTS = re.compile(r"^(\d+) packets transmitted, (\d+) (?:packets )?received(?:, \+(\d+) duplicates)?"
                    r"(?:, \+(\d+) errors)?, (\d+(?:\.\d+)?)% packet loss(?:, time (\d+)ms)?")
RTT = re.compile(r"^(?:rtt|round-trip) min/avg/max/(?:mdev|stddev) = (\d+\.?\d*)/(\d+\.?\d*)/(\d+\.?\d*)/(\d+\.?\d*) ms")
REPLY = re.compile(r"^\d+ bytes from ")
FRAG_NEEDED = re.compile(r"Frag needed and DF set \(mtu = (\d+)\)")
LOCAL_MTU = re.compile(r"message too long, mtu=(\d+)", re.IGNORECASE)
ERROR_LINE = re.compile(r"^(?:ping: .+|From \S+ (?:icmp_seq=\d+ )?.+)$")


@dataclass(frozen=True)
class PingResult:
    """One ping run. Counts and loss are None only when ping stopped before sending (see fatal_error)."""

    destination: str | None
    source: str | None
    payload_bytes: int | None
    transmitted: int | None
    received: int | None
    errors: int | None
    loss_percent: float | None
    rtt_min_ms: float | None
    rtt_avg_ms: float | None
    rtt_max_ms: float | None
    rtt_mdev_ms: float | None
    error_messages: tuple[str, ...]
    path_mtu: int | None
    fatal_error: str | None

    @property
    def all_replies_received(self) -> bool:
        """True only for a run that sent packets and lost none."""
        return self.fatal_error is None and bool(self.transmitted) and self.loss_percent == 0.0


def _path_mtu(messages: list[str]) -> int | None:
    for message in messages:
        match = FRAG_NEEDED.search(message) or LOCAL_MTU.search(message)
        if match:
            return int(match.group(1))
    return None


@parser("ping", "iputils ping: transmitted/received/loss, rtt min/avg/max/mdev, errors (frag needed, unreachable)")
def parse_ping(text: str) -> PingResult:
    """Parse the output of one iputils ``ping -c N`` run."""
    lines = [line.strip() for line in clean_lines(TOOL, text)]
    banner = next((m for m in map(BANNER.match, lines) if m), None)
    messages = [line for line in lines if ERROR_LINE.match(line)]
    title_index = next((i for i, line in enumerate(lines) if STATISTICS_TITLE.match(line)), None)
    if title_index is None:
        fatal = next((line for line in messages if line.startswith("ping: ")), None)
        if fatal and not any(REPLY.match(line) for line in lines):
            return PingResult(banner.group(1) if banner else None, banner.group(3) if banner else None,
                              int(banner.group(4)) if banner else None, None, None, None, None,
                              None, None, None, None, tuple(messages), _path_mtu(messages), fatal)
        fail(TOOL, "no '--- <host> ping statistics ---' section (output truncated?) and no ping error message")
    counts = COUNTS.match(lines[title_index + 1]) if title_index + 1 < len(lines) else None
    if counts is None:
        fail(TOOL, "statistics section lacks the 'N packets transmitted, M received, X% packet loss' line")
    transmitted, received = int(counts.group(1)), int(counts.group(2))
    if received > transmitted and counts.group(3) is None:
        fail(TOOL, f"{received} packets received out of {transmitted} transmitted")
    rtt = RTT.match(lines[title_index + 2]) if title_index + 2 < len(lines) else None
    if received > 0 and rtt is None:
        fail(TOOL, "replies were received but the 'rtt min/avg/max/mdev' line is missing (output truncated?)")
    destination = banner.group(1) if banner else STATISTICS_TITLE.match(lines[title_index]).group(1)  # type: ignore[union-attr]
    return PingResult(
        destination=destination,
        source=banner.group(3) if banner else None,
        payload_bytes=int(banner.group(4)) if banner else None,
        transmitted=transmitted,
        received=received,
        errors=int(counts.group(4)) if counts.group(4) else 0,
        loss_percent=float(counts.group(5)),
        rtt_min_ms=float(rtt.group(1)) if rtt else None,
        rtt_avg_ms=float(rtt.group(2)) if rtt else None,
        rtt_max_ms=float(rtt.group(3)) if rtt else None,
        rtt_mdev_ms=float(rtt.group(4)) if rtt else None,
        error_messages=tuple(messages),
        path_mtu=_path_mtu(messages),
        fatal_error=None,
    )
