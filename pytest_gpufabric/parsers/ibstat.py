"""infiniband-diags ``ibstat``: every channel adapter (CA) with its ports' state, physical state, rate, link layer.

``ibstat`` reads the same kernel port attributes that ``rdma link show`` prints (``Active`` / ``LinkUp`` there
are ``ACTIVE`` / ``LINK_UP`` here), so a node without iproute2's ``rdma`` still tells its RDMA port state.

``CA '<name>'`` starts an adapter, ``Port <n>:`` one of its ports, and ``Key: value`` lines follow. Read by the
parsing rule: a value is taken only in the form ibstat prints it (a state word, a rate of whole or half Gb/s, a
``0x`` GUID); a line of another form, or one before any ``CA`` line (a cut quote), costs only its own fact and is
kept unread, scoped to its adapter. ``ibpanic:`` (ibstat stopped on an adapter) is unread too: the adapters
printed before it keep their facts; ``ibwarn:`` lines (libibumad's debug messages) are known. An adapter with fewer port sections than its ``Number of ports`` (a cut
output) keeps the ports printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "ibstat"
IBWARN = re.compile(r"^ibwarn: \[\d+\] \w+: ")
CA_HEADER = re.compile(r"^CA '([^']+)'$")
PORT_HEADER = re.compile(r"^Port (\d+):$")
FIELD = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*(.*)$")
WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
GUID = re.compile(r"^0x[0-9a-fA-F]{1,16}$")
RATE = re.compile(r"^\d+(\.5)?$")  # ibstat prints the rate in Gb/s, 2.5 for a 1X SDR port


def _word(value: str, what: str) -> str:
    if not WORD.match(value):
        raise Unfit(f"{what}: expected a word, found {value!r}")
    return value


def _guid(value: str, what: str) -> str:
    if not GUID.match(value):
        raise Unfit(f"{what}: expected a 0x GUID, found {value!r}")
    return value


def _rate(value: str, what: str) -> float:
    if not RATE.match(value):
        raise Unfit(f"{what}: expected Gb/s such as 400 or 2.5, found {value!r}")
    return decimal(value, what)


def _number(value: str, what: str) -> int:
    return integer(value, what)


# The fields a check or the facts read, with the form each must have; other ``Key: value`` lines are known.
CA_FIELDS: dict[str, Callable[[str, str], object]] = {"CA type": _word, "Node GUID": _guid, "Number of ports": _number}
PORT_FIELDS: dict[str, Callable[[str, str], object]] = {
    "State": _word, "Physical state": _word, "Rate": _rate, "Link layer": _word, "Port GUID": _guid,
}  # fmt: skip


# The other keys ibstat prints (infiniband-diags src/ibstat.c): understood, no fact read from them.
OTHER_CA_FIELDS = ("Firmware version", "Hardware version", "System image GUID")
OTHER_PORT_FIELDS = ("Base lid", "LMC", "SM lid", "Capability mask")


@dataclass(frozen=True)
class IbstatPort:
    number: int
    state: Optional[str]
    physical_state: Optional[str]
    rate_gbps: Optional[float]
    link_layer: Optional[str]
    port_guid: Optional[str]


@dataclass(frozen=True)
class IbstatCa:
    name: str
    ca_type: Optional[str]
    node_guid: Optional[str]
    ports: tuple[IbstatPort, ...]
    number_of_ports: Optional[int] = None

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
    fields: dict[str, object] = field(default_factory=dict)
    ports: dict[int, dict[str, object]] = field(default_factory=dict)


def _adapter(block: _Block) -> IbstatCa:
    ports = tuple(
        IbstatPort(number, values.get("State"), values.get("Physical state"), values.get("Rate"),  # type: ignore[arg-type]
                   values.get("Link layer"), values.get("Port GUID"))  # type: ignore[arg-type]
        for number, values in block.ports.items())  # fmt: skip
    return IbstatCa(block.name, block.fields.get("CA type"), block.fields.get("Node GUID"), ports,  # type: ignore[arg-type]
                    block.fields.get("Number of ports"))  # type: ignore[arg-type]


def _field(reading: Reading, line: Line, block: _Block, port: Optional[int]) -> None:
    match = FIELD.match(line.stripped)
    scope = block.name
    if not match:
        reading.unread(line, "expected 'Key: value'", scope)
        return
    key, value = match.group(1).strip(), match.group(2).strip()
    forms = PORT_FIELDS if port is not None else CA_FIELDS
    if key in (OTHER_PORT_FIELDS if port is not None else OTHER_CA_FIELDS):
        reading.known(line)
        return
    if key not in forms:
        reading.unread(line, f"{key!r} is not a key ibstat prints here", scope)
        return
    target = block.ports[port] if port is not None else block.fields
    with reading.row(line, scope):
        if key in target:
            raise Unfit(f"{key} given twice")
        target[key] = forms[key](value, f"CA {block.name!r}{f' port {port}' if port is not None else ''} {key}")


@parser(TOOL, "ibstat: CAs, CA type, node GUID; per port state, physical state, rate, link layer, port GUID")
def parse_ibstat(text: str) -> Parsed[Ibstat]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    blocks: list[_Block] = []
    port: Optional[int] = None
    skip: Optional[tuple[str, str]] = ("before any \"CA '<name>'\" line: its adapter is not known", "")
    for line in reading.content():
        header, port_header = CA_HEADER.match(line.stripped), PORT_HEADER.match(line.stripped)
        if header:
            name, port = header.group(1), None
            skip = (f"CA {name!r} listed twice", name) if any(b.name == name for b in blocks) else None
            if skip:
                reading.unread(line, *skip)
            else:
                blocks.append(_Block(name))
                reading.used(line)
        elif line.stripped.startswith("ibpanic:"):
            reading.unread(line, "ibstat stopped here (ibpanic)")
        elif IBWARN.match(line.stripped):
            reading.known(line)  # libibumad's debug messages (-d): no fact of an adapter
        elif port_header and blocks and (skip is None or skip[0].startswith("port")):
            port = integer(port_header.group(1), "port")
            skip = (f"port {port} of {blocks[-1].name!r} listed twice", blocks[-1].name) if port in blocks[-1].ports else None
            if skip:
                reading.unread(line, *skip)
            else:
                blocks[-1].ports[port] = {}
                reading.known(line)
        elif skip is not None:
            reading.unread(line, *skip)
        else:
            _field(reading, line, blocks[-1], port)
    return reading.done(Ibstat(tuple(_adapter(block) for block in blocks)), nothing="no \"CA '<name>'\" adapter read")
