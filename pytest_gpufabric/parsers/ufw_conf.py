"""``/etc/ufw/ufw.conf``: ``ENABLED=yes`` is what makes ufw's unit load the firewall at boot (``systemctl
is-active ufw`` reports that unit); comments and the other settings are kept apart."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "ufw-conf"
SETTING = re.compile(r"^([A-Z_]+)=\"?([^\"]*)\"?$")


@parser(TOOL, "/etc/ufw/ufw.conf: whether ufw is enabled (ENABLED=yes|no)")
def parse_ufw_conf(text: str) -> bool:
    settings = {}
    for line in clean_lines(TOOL, text):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = SETTING.match(stripped)
        if not match:
            fail(TOOL, f"expected '<NAME>=<value>' or a comment, found {stripped!r}")
        settings[match.group(1)] = match.group(2)
    enabled = settings.get("ENABLED")
    if enabled not in ("yes", "no"):
        fail(TOOL, f"ENABLED is {enabled!r}, expected yes or no")
    return enabled == "yes"
