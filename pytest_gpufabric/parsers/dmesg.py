"""``dmesg``: kernel log lines, and the driver error lines a profile's patterns select (HOST-004)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser

TOOL = "dmesg"
TIMESTAMP = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")


@dataclass(frozen=True)
class DmesgLine:
    timestamp: Optional[float]  # seconds since boot; None for ``dmesg -t`` or wrapped lines
    text: str


@dataclass(frozen=True)
class DmesgMatch:
    pattern: str
    line: DmesgLine


@dataclass(frozen=True)
class KernelLog:
    lines: tuple[DmesgLine, ...]

    def matching(self, patterns: Sequence[str]) -> tuple[DmesgMatch, ...]:
        """Lines matching any of ``patterns`` (case-insensitive regular expressions, from the profile)."""
        try:
            compiled = [(pattern, re.compile(pattern, re.IGNORECASE)) for pattern in patterns]
        except re.error as exc:
            raise ValueError(f"invalid dmesg pattern: {exc}") from exc
        return tuple(
            DmesgMatch(pattern, line)
            for line in self.lines
            for pattern, regex in compiled
            if regex.search(line.text)
        )


@parser(TOOL, "dmesg: kernel log lines with their timestamps")
def parse_dmesg(text: str) -> Parsed[KernelLog]:
    """Every line is a log line (``dmesg -t`` and wrapped lines have no timestamp); a line whose timestamp is
    malformed is unread."""
    reading = Reading(TOOL, text)
    lines = []
    for line in reading.content():
        match = TIMESTAMP.match(line.stripped)
        if match:
            lines.append(DmesgLine(float(match.group(1)), match.group(2).strip()))
            reading.used(line)
        elif line.stripped.startswith("["):
            reading.unread(line, "malformed timestamp")
        else:
            lines.append(DmesgLine(None, line.stripped))
            reading.used(line)
    return reading.done(KernelLog(tuple(lines)), nothing="no kernel log line")
