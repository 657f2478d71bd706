"""``ibdev2netdev`` (MLNX_OFED / DOCA scripts): RDMA device and port to net device, with the net device's state.

The script prints ``<rdma device> port <n> ==> <net device> (Up|Down)``; ``| column -t`` widens the gaps. The
state in parentheses is the net device's, not the RDMA port's: ``rdma link show`` / ``ibstatus`` give that one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

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
def parse_ibdev2netdev(text: str) -> RdmaNetdevs:
    mappings = []
    for line in clean_lines(TOOL, text):
        if not line.strip():
            continue
        match = MAPPING.match(line.strip())
        if not match:
            fail(TOOL, f"expected '<device> port <n> ==> <netdev> (Up|Down)', found {line.strip()!r}")
        device, port, netdev, state = match.groups()
        if state not in ("Up", "Down"):
            fail(TOOL, f"{device} port {port}: expected state Up or Down, found {state!r}")
        mappings.append(RdmaNetdev(device, int(port), netdev, state == "Up"))
    return RdmaNetdevs(tuple(mappings))
