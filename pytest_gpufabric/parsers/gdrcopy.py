"""``gdrcopy_sanity`` (``sanity`` before gdrcopy 2.3): the test summary, each test's outcome, the waived tests
(GPU-006).

Two summary forms: gdrcopy 2.3 and later print ``Total: N, Passed: P, Failed: F, Waived: W`` and the lists
``List of failed tests:`` / ``List of waived tests:`` (names indented by four spaces); earlier releases ran the
``check`` library, which prints ``58%: Checks: 12, Failures: 0, Errors: 5`` and one
``sanity.cpp:<line>:E|F:<suite>:<test>:...`` line per test that did not pass (no test is waived there).
With ``-v`` each test is framed by ``&&&& RUNNING <test>`` and ``&&&& PASSED|FAILED|WAIVED <test>``: those
outcomes are read too, so a run cut before its summary still says which tests passed. Read by the parsing rule:
a line of no known form outside a test's own messages costs only its own facts and is kept unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "gdrcopy-sanity"
SUMMARY = re.compile(r"^Total:\s*(\d+),\s*Passed:\s*(\d+),\s*Failed:\s*(\d+),\s*Waived:\s*(\d+)$")
CHECK_SUMMARY = re.compile(r"^(\d+)%:\s*Checks:\s*(\d+),\s*Failures:\s*(\d+),\s*Errors:\s*(\d+)$")
CHECK_FAILURE = re.compile(r"^\S+:\d+:[EF]:[^:]+:([^:]+):\d+:")
OUTCOME = re.compile(r"^&&&& (RUNNING|PASSED|FAILED|WAIVED) (\S+)$")
LISTS = {"List of failed tests:": "failed", "List of waived tests:": "waived"}
# What the sanity program and gdrcopy's library print besides the summary (messages of the tests themselves).
KNOWN = re.compile(r"^(Running suite\(s\): |(ERR|DBG|INFO|WARN):\s|warning: |Assertion |CUDA error|buffer size|"
                   r"gdr_open error|Waiv|Using |Get signal|First allocation|Second allocation|d_A is |Try mapping|"
                   r"Mapping d_A|Align d_A|Pin and map|off: |check \d+: |spawning|pinning|mapping|unmapping|"
                   r"Allocated |Unexpectedly|Error: )")


@dataclass(frozen=True)
class GdrcopySanity:
    """The summary (None where the output has none) and each test's outcome as printed."""

    total: Optional[int]
    passed: Optional[int]
    failed: Optional[int]
    waived: Optional[int]
    waived_tests: tuple[str, ...]
    failed_tests: tuple[str, ...] = ()
    outcomes: dict[str, str] | None = None  # test -> PASSED, FAILED, WAIVED (``-v``), or RUNNING when cut there

    @property
    def neither_passed_nor_waived(self) -> Optional[int]:
        """Tests that failed or did not end; None without a summary."""
        if self.total is None or self.passed is None or self.waived is None:
            return None
        return self.total - self.passed - self.waived


@parser(TOOL, "gdrcopy_sanity: total, passed, failed, waived counts and the waived test names")
def parse_gdrcopy_sanity(text: str) -> Parsed[GdrcopySanity]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    counts: Optional[tuple[int, int, int, int]] = None
    listed: dict[str, list[str]] = {"failed": [], "waived": []}
    outcomes: dict[str, str] = {}
    in_list: Optional[str] = None
    previous = 0
    for line in reading.content():
        stripped = line.stripped
        if line.number > previous + 1:
            in_list = None  # a blank line ends a list of tests
        previous = line.number
        summary, check = SUMMARY.match(stripped), CHECK_SUMMARY.match(stripped)
        outcome, failure = OUTCOME.match(stripped), CHECK_FAILURE.match(stripped)
        if stripped in LISTS:
            in_list = LISTS[stripped]
            reading.known(line)
        elif in_list and re.fullmatch(r"\w+", stripped):
            listed[in_list].append(stripped)
            reading.used(line)
        elif (summary or check) and counts is not None:
            reading.unread(line, "a second summary line")
        elif summary:
            in_list = None
            counts = tuple(integer(value, "count") for value in summary.groups())  # type: ignore[assignment]
            reading.used(line)
        elif check:
            in_list = None
            total, failures, errors = (integer(value, "count") for value in check.groups()[1:])
            counts = (total, total - failures - errors, failures + errors, 0)  # the check library waives nothing
            reading.used(line)
        elif failure:
            listed["failed"].append(failure.group(1))
            reading.used(line)
        elif outcome:
            outcomes[outcome.group(2)] = outcome.group(1)
            reading.used(line)
        elif KNOWN.match(stripped):
            reading.known(line)
        else:
            reading.unread(line, "not a line of gdrcopy's sanity test", in_list or "")
    total, passed, failed, waived = counts if counts is not None else (None, None, None, None)
    sanity = GdrcopySanity(total, passed, failed, waived, tuple(listed["waived"]), tuple(listed["failed"]),
                           outcomes or None)
    return reading.done(sanity, nothing="no 'Total: ...' or 'Checks: ...' summary and no test outcome")
