"""fping in count mode (``fping -q -c N ...``): per target, probes sent and answered, loss and round-trip times.

fping prints one summary line per target on stderr (``10.0.0.2 : xmt/rcv/%loss = 5/5/0%, min/avg/max =
0.04/0.05/0.07``; no times when nothing came back), the target names padded to one width. A value comes only
from a summary line understood completely and consistent with itself (received <= sent, the loss fping prints
equal to the loss of its counts); a target named twice keeps neither line. Lines fping prints about errors
(``ICMP Host Unreachable from ...``, ``fping: ...``, ``<target>: error while sending ping: ...``) and duplicate
replies (``<target> : duplicate for [0], 84 bytes, 0.91 ms``) are kept as messages; any other line is kept, with its number, as not understood. An output without a single summary line
or message is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_text, fail

TOOL = "fping"

SUMMARY = re.compile(r"^(?P<target>\S+)\s+: xmt/rcv/%loss = (?P<sent>\d+)/(?P<received>\d+)/(?P<loss>\d+(?:\.\d+)?)%"
                     r"(?:, min/avg/max = (?P<min>\d+(?:\.\d+)?)/(?P<avg>\d+(?:\.\d+)?)/(?P<max>\d+(?:\.\d+)?))?$")
MESSAGE = re.compile(r"^(?:ICMP .+ from \S+ for ICMP Echo sent to \S+|fping: .+|\S+: error while sending ping: .+"
                     r"|\S+\s+: duplicate for \[\d+\], \d+ bytes, \d+(?:\.\d+)? ms)$")


class FpingTarget(NamedTuple):
    """The probes of one target: sent, answered, loss (%), round trips in ms (None when none came back). A named
    tuple: a node's mesh output has thousands of them."""

    target: str
    sent: int
    received: int
    loss_percent: float
    rtt_min_ms: float | None
    rtt_avg_ms: float | None
    rtt_max_ms: float | None


@dataclass(frozen=True)
class FpingResult:
    """Every target's summary, fping's error messages, and the lines not understood (number, text)."""

    targets: dict[str, FpingTarget]
    messages: tuple[str, ...]
    unread: tuple[tuple[int, str], ...]


def _summary(line: str) -> FpingTarget | None:
    """The target of one summary line, or None when the line is not one fping prints or contradicts itself."""
    match = SUMMARY.match(line)
    if match is None:
        return None
    target, sent_text, received_text, loss_text, low, average, high = match.groups()
    sent, received, loss = int(sent_text), int(received_text), float(loss_text)
    if sent < 1 or received > sent or abs(loss - (sent - received) * 100 // sent) >= 1 or (received > 0) != (average is not None):
        return None
    if average is None:
        return FpingTarget(target, sent, received, loss, None, None, None)
    return FpingTarget(target, sent, received, loss, float(low), float(average), float(high))


@parser("fping", "fping -q -c N: per target probes sent/answered, loss and round-trip times; error messages")
def parse_fping(text: str) -> FpingResult:
    """Parse the (stderr and stdout) output of one ``fping -q -c N`` run."""
    targets: dict[str, FpingTarget] = {}
    lines_of: dict[str, tuple[int, str]] = {}
    twice: set[str] = set()
    messages: list[str] = []
    unread: list[tuple[int, str]] = []
    for number, raw in enumerate(clean_text(TOOL, text).split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        found = _summary(line)
        if found is not None and found.target not in targets and found.target not in twice:
            targets[found.target] = found
            lines_of[found.target] = (number, line)
        elif found is not None:  # named twice: neither line can be trusted
            if targets.pop(found.target, None) is not None:
                unread.append(lines_of[found.target])
            twice.add(found.target)
            unread.append((number, line))
        elif MESSAGE.match(line):
            messages.append(line)
        else:
            unread.append((number, line))
    if not targets and not messages:
        fail(TOOL, "no 'TARGET : xmt/rcv/%loss = ...' line and no fping message")
    return FpingResult(targets, tuple(messages), tuple(sorted(unread)))
