"""``/etc/bnxt_re/bnxt_re.conf``: the RoCE QoS settings the bnxt_re_conf package applies (DRV-009).

``KEY=VALUE`` lines (comments and blank lines between), read by the parsing rule: a line of another form costs
only its own setting and is kept unread. A key set twice is read from neither line (which one the package's
script applies depends on how it reads the file): both lines cost that setting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import parse_int
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "bnxt-re-conf"
ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)\s*=\s*(.*)$")


@dataclass(frozen=True)
class BnxtReConf:
    """KEY=VALUE settings as written (ENABLE_FC, FC_MODE, ROCE_PRI, ROCE_DSCP, CNP_PRI, CNP_DSCP, ROCE_BW...)."""

    values: dict[str, str]

    def get_int(self, key: str) -> Optional[int]:
        """The integer value of ``key``; None when the file does not set it; ParseError when not an integer."""
        if key not in self.values:
            return None
        return parse_int(TOOL, self.values[key], key)


@parser(TOOL, "cat /etc/bnxt_re/bnxt_re.conf: KEY=VALUE RoCE QoS settings")
def parse_bnxt_re_conf(text: str) -> Parsed[BnxtReConf]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    values: dict[str, str] = {}
    lines: dict[str, Line] = {}
    twice: set[str] = set()
    for line in reading.content():
        if line.stripped.startswith("#"):
            reading.known(line)
            continue
        match = ASSIGNMENT.match(line.stripped)
        if not match:
            reading.unread(line, "expected KEY=VALUE")
            continue
        key, value = match.groups()
        if key in lines:
            twice.add(key)
            reading.unread(line, f"{key} set twice: neither value is read", key)
            continue
        values[key] = value.split("#")[0].strip().strip("\"'")
        lines[key] = line
        reading.used(line)
    for key in twice:
        reading.unread(lines[key], f"{key} set twice: neither value is read", key)
        del values[key]
    return reading.done(BnxtReConf(values), nothing="no KEY=VALUE setting")
