"""``ibdev2netdev`` (MLNX_OFED / DOCA scripts): RDMA device and port to net device, with the net device's state.

The script prints ``<rdma device> port <n> ==> <net device> (Up|Down)``; ``| column -t`` widens the gaps. The
state in parentheses is the net device's, not the RDMA port's: ``rdma link show`` / ``ibstatus`` give that one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import COMMAND_PROMPT
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "ibdev2netdev"
MAPPING = re.compile(r"^(\S+)\s+port\s+(\d+)\s+==>\s+(\S+)\s+\((\w+)\)$")


@dataclass(frozen=True)
class RdmaNetdev:
    device: str
    port: int
    netdev: str
    netdev_up: bool


@dataclass(frozen=True)
class RdmaNetdevs:
    mappings: tuple[RdmaNetdev, ...]

    def get(self, device: str, port: int = 1) -> Optional[RdmaNetdev]:
        return next((m for m in self.mappings if m.device == device and m.port == port), None)


@parser(TOOL, "ibdev2netdev: RDMA device/port ==> net device (Up/Down)")
def parse_ibdev2netdev(text: str) -> Parsed[RdmaNetdevs]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    mappings = []
    for line in reading.content():
        match = MAPPING.match(line.stripped)
        if not match and COMMAND_PROMPT.match(line.stripped):
            reading.known(line)  # the prompt and command pasted above the output
            continue
        if not match:
            reading.unread(line, "expected '<device> port <n> ==> <netdev> (Up|Down)'")
            continue
        device, port, netdev, state = match.groups()
        with reading.row(line, scope=device):
            if state not in ("Up", "Down"):
                raise Unfit(f"{device} port {port}: expected state Up or Down, found {state!r}")
            mappings.append(RdmaNetdev(device, integer(port, "port"), netdev, state == "Up"))
    return reading.done(RdmaNetdevs(tuple(mappings)), nothing="no '<device> port <n> ==> <netdev> (Up|Down)' line")
