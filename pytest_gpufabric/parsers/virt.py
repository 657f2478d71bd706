"""``systemd-detect-virt``: the virtualization a node runs under (``none`` on bare metal)."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "systemd-detect-virt"
WORD = re.compile(r"^[a-z][a-z0-9_-]*$")


@parser(TOOL, "systemd-detect-virt: the hypervisor identifier (vmware, kvm, ...) or none")
def parse_detect_virt(text: str) -> str:
    lines = [line.strip() for line in clean_lines(TOOL, text) if line.strip()]
    if len(lines) != 1 or not WORD.match(lines[0]):
        fail(TOOL, f"expected one word such as 'vmware' or 'none', found {' '.join(lines)[:80]!r}")
    return lines[0]
