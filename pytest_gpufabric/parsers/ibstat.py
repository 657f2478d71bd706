"""infiniband-diags ``ibstat``: every channel adapter (CA) with its ports' state, physical state, rate, link layer.

``ibstat`` reads the same kernel port attributes that ``rdma link show`` prints (``Active`` / ``LinkUp`` there
are ``ACTIVE`` / ``LINK_UP`` here), so a node without iproute2's ``rdma`` still tells its RDMA port state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_int

TOOL = "ibstat"
CA_HEADER = re.compile(r"^CA '([^']+)'$")
PORT_HEADER = re.compile(r"^Port (\d+):$")
FIELD = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*(.*)$")


@dataclass(frozen=True)
class IbstatPort:
    number: int
    state: Optional[str]
    physical_state: Optional[str]
    rate_gbps: Optional[int]
    link_layer: Optional[str]
    port_guid: Optional[str]


@dataclass(frozen=True)
class IbstatCa:
    name: str
    ca_type: Optional[str]
    node_guid: Optional[str]
    ports: tuple[IbstatPort, ...]

    def port(self, number: int = 1) -> Optional[IbstatPort]:
        return next((port for port in self.ports if port.number == number), None)


@dataclass(frozen=True)
class Ibstat:
    adapters: tuple[IbstatCa, ...]

    def get(self, name: str) -> Optional[IbstatCa]:
        return next((ca for ca in self.adapters if ca.name == name), None)


@dataclass
class _Block:
    name: str
    fields: dict[str, str] = field(default_factory=dict)
    ports: list[tuple[int, dict[str, str]]] = field(default_factory=list)


def _port(number: int, fields: dict[str, str]) -> IbstatPort:
    rate = fields.get("Rate")
    return IbstatPort(
        number=number, state=fields.get("State"), physical_state=fields.get("Physical state"),
        rate_gbps=None if rate is None else parse_int(TOOL, rate, f"port {number} Rate"),
        link_layer=fields.get("Link layer"), port_guid=fields.get("Port GUID"),
    )  # fmt: skip


def _adapter(block: _Block) -> IbstatCa:
    declared = block.fields.get("Number of ports")
    if declared is not None and parse_int(TOOL, declared, f"{block.name} Number of ports") != len(block.ports):
        fail(TOOL, f"CA {block.name!r}: Number of ports is {declared} but {len(block.ports)} port sections")
    ports = tuple(_port(number, fields) for number, fields in block.ports)
    return IbstatCa(block.name, block.fields.get("CA type"), block.fields.get("Node GUID"), ports)


@parser(TOOL, "ibstat: CAs, CA type, node GUID; per port state, physical state, rate, link layer, port GUID")
def parse_ibstat(text: str) -> Ibstat:
    blocks: list[_Block] = []
    for raw in clean_lines(TOOL, text):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("ibpanic:"):
            fail(TOOL, f"ibstat stopped: {line}")
        header = CA_HEADER.match(line)
        if header:
            blocks.append(_Block(header.group(1)))
            continue
        if not blocks:
            fail(TOOL, f"expected \"CA '<name>'\" first, found {line!r}")
        port = PORT_HEADER.match(line)
        if port:
            blocks[-1].ports.append((int(port.group(1)), {}))
            continue
        match = FIELD.match(line)
        if not match:
            fail(TOOL, f"CA {blocks[-1].name!r}: expected 'Key: value', found {line!r}")
        target = blocks[-1].ports[-1][1] if blocks[-1].ports else blocks[-1].fields
        target[match.group(1)] = match.group(2).strip()
    return Ibstat(tuple(_adapter(block) for block in blocks))
