"""``/proc/meminfo``: memory sizes in KiB (HOST-005 reads MemTotal)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

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
def parse_meminfo(text: str) -> MemInfo:
    values: dict[str, int] = {}
    for line in clean_lines(TOOL, text):
        if not line.strip():
            continue
        match = LINE.match(line.strip())
        if not match:
            fail(TOOL, f"expected '<Field>: <number> kB', found {line.strip()!r}")
        values[match.group(1)] = int(match.group(2))
    if "MemTotal" not in values:
        fail(TOOL, "no MemTotal line")
    return MemInfo(values)
