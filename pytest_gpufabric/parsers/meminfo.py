"""``/proc/meminfo``: memory sizes in KiB (HOST-005 reads MemTotal), one ``Field: <n> kB`` line each, read by the
parsing rule: a line of another form costs only its own field (kept unread); MemTotal missing is a missing fact
for the check, never a guess."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser

TOOL = "meminfo"
LINE = re.compile(r"^([\w()]+):\s+(\d+)(?:\s+kB)?$")


@dataclass(frozen=True)
class MemInfo:
    """Field -> value; sizes are in KiB as printed, counters (HugePages_Total) are plain numbers."""

    values: dict[str, int]

    @property
    def mem_total_kib(self) -> Optional[int]:
        return self.values.get("MemTotal")


@parser(TOOL, "cat /proc/meminfo: MemTotal and the other fields (KiB)")
def parse_meminfo(text: str) -> Parsed[MemInfo]:
    reading = Reading(TOOL, text)
    values: dict[str, int] = {}
    for line in reading.content():
        match = LINE.match(line.stripped)
        if not match or match.group(1) in values:
            reading.unread(line, "expected '<Field>: <number> kB', each field once")
            continue
        values[match.group(1)] = int(match.group(2))
        reading.used(line)
    return reading.done(MemInfo(values), nothing="no '<Field>: <number> kB' line")
