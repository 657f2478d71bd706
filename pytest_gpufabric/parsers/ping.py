"""ping (iputils, and BusyBox's): packets sent and received, loss, round-trip times and the errors ping printed.

A ping that could not send at all ("ping: connect: Network is unreachable") prints no statistics; it is
reported as a result with ``fatal_error`` set and no counts, never as zero loss.

Forms read: iputils' banner ``PING host (addr) [from src ...] 56(84) bytes of data.``, its statistics
``N packets transmitted, M received[, +D duplicates][, +E errors], X% packet loss[, time Tms]`` and ``rtt
min/avg/max/mdev = a/b/c/d ms``; BusyBox's ``PING host (addr): 56 data bytes``, ``N packets transmitted, M
packets received, X% packet loss`` and ``round-trip min/avg/max = a/b/c ms`` (no deviation); BSD's
``round-trip min/avg/max/stddev``. Read by the parsing rule: a line of another form costs only its own facts
and is kept unread; an output cut before its statistics has no counts (None), never a loss of 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "ping"

BANNER = re.compile(r"^PING (\S+) \((\S+)\)(?: from (\S+)(?: \S+)?)?\s*:?\s*(\d+)\((\d+)\) bytes of data\.$")
BUSYBOX_BANNER = re.compile(r"^PING (\S+) \((\S+)\)(?: from (\S+))?: (\d+) data bytes$")
STATISTICS_TITLE = re.compile(r"^--- (\S+) ping statistics ---$")
COUNTS = re.compile(r"^(\d+) packets transmitted, (\d+) (?:packets )?received(?:, \+(\d+) duplicates)?"
                    r"(?:, \+(\d+) errors)?, (\d+(?:\.\d+)?)% packet loss(?:, time (\d+)ms)?$")
RTT = re.compile(r"^(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev))? = (\d+\.?\d*)/(\d+\.?\d*)/(\d+\.?\d*)(?:/(\d+\.?\d*))? ms"
                 r"(?:, pipe \d+)?(?:, ipg/ewma [\d.]+/[\d.]+ ms)?$")
REPLY = re.compile(r"^\d+ bytes from \S+ \S+ (icmp_[rs]eq|seq)=\d+ ttl=\d+ time=[\d.]+ ms( \(DUP!\))?$|"
                   r"^\d+ bytes from \S+: (icmp_[rs]eq|seq)=\d+ ttl=\d+ time=[\d.]+ ms( \(DUP!\))?$")
PIPE = re.compile(r"^pipe \d+$")
INTERRUPT = "^C"  # the terminal's echo of Ctrl-C, which ends a ping without -c
FRAG_NEEDED = re.compile(r"Frag needed and DF set \(mtu = (\d+)\)")
LOCAL_MTU = re.compile(r"message too long, mtu=(\d+)", re.IGNORECASE)
ERROR_LINE = re.compile(r"^(?:ping: .+|From \S+ (?:icmp_seq=\d+ )?.+)$")


@dataclass(frozen=True)
class PingResult:
    """One ping run. Counts and loss are None when ping stopped before sending (see fatal_error) or the output
    has no statistics line that was understood."""

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


def _counts(match: re.Match[str]) -> tuple[int, int, int, float]:
    transmitted, received = integer(match.group(1), "transmitted"), integer(match.group(2), "received")
    if received > transmitted and match.group(3) is None:
        raise Unfit(f"{received} packets received out of {transmitted} transmitted")
    return transmitted, received, integer(match.group(4), "errors") if match.group(4) else 0, decimal(match.group(5), "loss")


@parser("ping", "iputils ping: transmitted/received/loss, rtt min/avg/max/mdev, errors (frag needed, unreachable)")
def parse_ping(text: str) -> Parsed[PingResult]:
    """Parse the output of one ``ping -c N`` run (iputils or BusyBox)."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    banner: re.Match[str] | None = None
    title: re.Match[str] | None = None
    counts: tuple[int, int, int, float] | None = None
    rtt: re.Match[str] | None = None
    messages: list[str] = []
    replies = 0
    once: dict[str, Line] = {}
    for line in reading.content():
        stripped = line.stripped
        matches = {"banner": BANNER.match(stripped) or BUSYBOX_BANNER.match(stripped),
                   "title": STATISTICS_TITLE.match(stripped), "counts": COUNTS.match(stripped), "rtt": RTT.match(stripped)}
        kind = next((name for name, match in matches.items() if match), None)
        if kind is not None and kind in once:
            reading.unread(line, f"a second {kind} line: one ping run at a time")
            continue
        if kind == "banner":
            banner = matches["banner"]
            reading.used(line)
        elif kind == "title":
            title = matches["title"]
            reading.known(line)
        elif kind == "counts":
            with reading.row(line):
                counts = _counts(matches["counts"])  # type: ignore[arg-type]
        elif kind == "rtt":
            rtt = matches["rtt"]
            reading.used(line)
        elif REPLY.match(stripped):
            replies += 1
            reading.known(line)
        elif PIPE.match(stripped) or stripped == INTERRUPT:
            reading.known(line)
        elif ERROR_LINE.match(stripped):
            messages.append(stripped)
            reading.used(line)
        else:
            reading.unread(line, "not a line ping prints")
        if kind is not None:
            once[kind] = line
    fatal = next((m for m in messages if m.startswith("ping: ")), None) if counts is None and not replies else None
    destination = banner.group(1) if banner else title.group(1) if title else None
    result = PingResult(
        destination=destination,
        source=banner.group(3) if banner else None,
        payload_bytes=int(banner.group(4)) if banner else None,
        transmitted=counts[0] if counts else None,
        received=counts[1] if counts else None,
        errors=counts[2] if counts else None,
        loss_percent=counts[3] if counts else None,
        rtt_min_ms=float(rtt.group(1)) if rtt else None,
        rtt_avg_ms=float(rtt.group(2)) if rtt else None,
        rtt_max_ms=float(rtt.group(3)) if rtt else None,
        rtt_mdev_ms=float(rtt.group(4)) if rtt and rtt.group(4) else None,
        error_messages=tuple(messages),
        path_mtu=_path_mtu(messages),
        fatal_error=fatal,
    )
    return reading.done(result, nothing="no ping banner, statistics or error message")
