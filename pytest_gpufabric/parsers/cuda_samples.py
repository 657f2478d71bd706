"""CUDA samples: ``deviceQuery`` (GPU-005) result, device count and CUDA errors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "device-query"
RESULT = re.compile(r"^Result = (PASS|FAIL)$")


@dataclass(frozen=True)
class DeviceQuery:
    passed: bool
    device_count: Optional[int]  # from "Detected N CUDA Capable device(s)"; None when not printed
    device_names: tuple[str, ...]
    errors: tuple[str, ...]  # e.g. "cudaGetDeviceCount returned 802", "-> system not yet initialized"


@parser(TOOL, "deviceQuery: Result = PASS/FAIL, detected device count and names, CUDA error lines")
def parse_device_query(text: str) -> DeviceQuery:
    lines = [line.strip() for line in clean_lines(TOOL, text)]
    results = [match.group(1) for match in map(RESULT.match, lines) if match]
    if len(results) != 1:
        fail(TOOL, f"expected one 'Result = PASS|FAIL' line, found {len(results)} (truncated output?)")
    count = next((re.search(r"Detected (\d+) CUDA Capable device", line) for line in lines if "CUDA Capable" in line), None)
    names = tuple(match.group(1) for match in (re.match(r'^Device \d+: "(.*)"$', line) for line in lines) if match)
    errors = tuple(line for line in lines if " returned " in line or line.startswith("->"))
    return DeviceQuery(results[0] == "PASS", int(count.group(1)) if count else None, names, errors)
