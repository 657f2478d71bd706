"""iproute2 ``rdma link show``: state, physical state and net device of every RDMA port.

Two forms: ``link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0`` (iproute2 since 4.17), and the
first releases' ``2/1: mlx5_0/1: state DOWN physical_state DISABLED netdev ens803f0`` (device index first).
An InfiniBand port adds ``subnet_prefix``, ``lid``, ``sm_lid`` and ``lmc`` before the state; an iWARP port may
have no netdev. A line is read only when every word after the device is a known key with its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import COMMAND_PROMPT
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "rdma-link"
LINK = re.compile(r"^(?:link|\d+/\d+:)\s+([^/\s]+)/(\d+):?(?:\s+(.*))?$")
KEYS = ("subnet_prefix", "lid", "sm_lid", "lmc", "state", "physical_state", "netdev", "netdev_index")
STATE = re.compile(r"^[A-Z_]+$")


@dataclass(frozen=True)
class RdmaLink:
    device: str
    port: int
    state: Optional[str]
    physical_state: Optional[str]
    netdev: Optional[str]
    lid: Optional[int] = None  # InfiniBand ports only
    sm_lid: Optional[int] = None
    subnet_prefix: Optional[str] = None
    lmc: Optional[int] = None


@dataclass(frozen=True)
class RdmaLinks:
    links: tuple[RdmaLink, ...]

    def get(self, device: str, port: int = 1) -> Optional[RdmaLink]:
        return next((link for link in self.links if link.device == device and link.port == port), None)


def _pairs(rest: str) -> dict[str, str]:
    words = rest.split()
    if len(words) % 2:
        raise Unfit(f"expected '<key> <value>' pairs after the device, found {rest!r}")
    pairs = dict(zip(words[::2], words[1::2]))
    unknown = [key for key in pairs if key not in KEYS]
    if unknown or len(pairs) != len(words) // 2:
        raise Unfit(f"unknown or repeated key {unknown[0] if unknown else ''!r} after the device")
    for key in ("state", "physical_state"):
        if key in pairs and not STATE.match(pairs[key]):
            raise Unfit(f"{key}: expected a word such as ACTIVE or LINK_UP, found {pairs[key]!r}")
    return pairs


@parser(TOOL, "rdma link show: device/port, state, physical_state, netdev (and lid of InfiniBand ports)")
def parse_rdma_link(text: str) -> Parsed[RdmaLinks]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    links = []
    for line in reading.content():
        match = LINK.match(line.stripped)
        if not match and COMMAND_PROMPT.match(line.stripped):
            reading.known(line)  # the prompt and command pasted above the output
            continue
        if not match:
            reading.unread(line, "expected 'link <device>/<port> state ...' or '<n>/<port>: <device>/<port>: state ...'")
            continue
        device, port, rest = match.groups()
        with reading.row(line, scope=device):
            pairs = _pairs(rest or "")
            if "state" not in pairs:
                raise Unfit("no state")
            number = {key: integer(pairs[key], key) if key in pairs else None for key in ("lid", "sm_lid", "lmc")}
            links.append(RdmaLink(device=device, port=integer(port, "port"), state=pairs["state"],
                                  physical_state=pairs.get("physical_state"), netdev=pairs.get("netdev"),
                                  lid=number["lid"], sm_lid=number["sm_lid"], subnet_prefix=pairs.get("subnet_prefix"),
                                  lmc=number["lmc"]))  # fmt: skip
    return reading.done(RdmaLinks(tuple(links)), nothing="no 'link <device>/<port> ...' line")
