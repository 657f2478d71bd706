"""``gdrcopy_sanity``: the test summary and the waived tests (GPU-006)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "gdrcopy-sanity"
SUMMARY = re.compile(r"^Total:\s*(\d+),\s*Passed:\s*(\d+),\s*Failed:\s*(\d+),\s*Waived:\s*(\d+)$")


@dataclass(frozen=True)
class GdrcopySanity:
    total: int
    passed: int
    failed: int
    waived: int
    waived_tests: tuple[str, ...]


@parser(TOOL, "gdrcopy_sanity: total, passed, failed, waived counts and the waived test names")
def parse_gdrcopy_sanity(text: str) -> GdrcopySanity:
    lines = [line.strip() for line in clean_lines(TOOL, text)]
    summaries = [SUMMARY.match(line) for line in lines if line.startswith("Total:")]
    if len(summaries) != 1 or summaries[0] is None:
        fail(TOOL, "expected one 'Total: <n>, Passed: <n>, Failed: <n>, Waived: <n>' line")
    total, passed, failed, waived = (int(value) for value in summaries[0].groups())
    waived_tests: list[str] = []
    if "List of waived tests:" in lines:
        for line in lines[lines.index("List of waived tests:") + 1 :]:
            if not line:
                break
            waived_tests.append(line)
    return GdrcopySanity(total, passed, failed, waived, tuple(waived_tests))
