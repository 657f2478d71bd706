"""``/etc/ufw/ufw.conf``: ``ENABLED=yes`` is what makes ufw's unit load the firewall at boot (``systemctl
is-active ufw`` reports that unit); comments and the other settings are known, a line of another form is kept
unread; without a readable ENABLED line the output is refused (it is the only fact)."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser

TOOL = "ufw-conf"
SETTING = re.compile(r"^([A-Z_]+)=\"?([^\"]*)\"?$")


@parser(TOOL, "/etc/ufw/ufw.conf: whether ufw is enabled (ENABLED=yes|no)")
def parse_ufw_conf(text: str) -> Parsed[bool]:
    reading = Reading(TOOL, text)
    enabled: bool | None = None
    for line in reading.content():
        match = SETTING.match(line.stripped)
        if line.stripped.startswith("#"):
            reading.known(line)
        elif not match:
            reading.unread(line, "expected '<NAME>=<value>' or a comment")
        elif match.group(1) != "ENABLED":
            reading.known(line)
        else:
            with reading.row(line, scope="ENABLED"):
                if match.group(2) not in ("yes", "no") or enabled is not None:
                    raise Unfit(f"ENABLED is {match.group(2)!r}, expected yes or no, once")
                enabled = match.group(2) == "yes"
    return reading.done(enabled, nothing="no 'ENABLED=yes|no' line")  # type: ignore[arg-type]
