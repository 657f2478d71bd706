"""``/etc/bnxt_re/bnxt_re.conf``: the RoCE QoS settings the bnxt_re_conf package applies (DRV-009)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_int

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
def parse_bnxt_re_conf(text: str) -> BnxtReConf:
    values: dict[str, str] = {}
    for line in clean_lines(TOOL, text):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = ASSIGNMENT.match(stripped)
        if not match:
            fail(TOOL, f"expected KEY=VALUE, found {stripped!r}")
        key, value = match.groups()
        if key in values:
            fail(TOOL, f"{key} set twice")
        values[key] = value.split("#")[0].strip().strip("\"'")
    if not values:
        fail(TOOL, "no KEY=VALUE setting")
    return BnxtReConf(values)
