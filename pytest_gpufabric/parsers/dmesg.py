"""``dmesg``: kernel log lines, and the driver error lines a profile's patterns select (HOST-004)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

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
def parse_dmesg(text: str) -> KernelLog:
    lines = []
    for raw in clean_lines(TOOL, text):
        if not raw.strip():
            continue
        match = TIMESTAMP.match(raw.strip())
        if match:
            lines.append(DmesgLine(float(match.group(1)), match.group(2).strip()))
        elif raw.lstrip().startswith("["):
            fail(TOOL, f"malformed timestamp in {raw.strip()[:60]!r}")
        else:
            lines.append(DmesgLine(None, raw.strip()))
    return KernelLog(tuple(lines))
