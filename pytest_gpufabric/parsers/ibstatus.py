"""infiniband-diags ``ibstatus``: one block per RDMA port with its default GID, state, physical state, rate and
link layer, as the kernel's ``/sys/class/infiniband/<dev>/ports/<n>/`` files hold them (``4: ACTIVE``,
``5: LinkUp``: the number is the IBTA state code, the word its name).

Read by the parsing rule: a value is taken only in the form ibstatus prints it; a line of another form, or one
before any ``Infiniband device '<dev>' port <n> status:`` line, costs only its own fact and is kept unread,
scoped to its device. A port whose state or physical state line is missing or not understood has None there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "ibstatus"
HEADER = re.compile(r"^Infiniband device '([^']+)' port (\d+) status:$")
FIELD = re.compile(r"^([a-z_ ]+):\s*(.*)$")
CODED = re.compile(r"^\d+:\s*([A-Za-z_]+)$")  # "4: ACTIVE"
RATE = re.compile(r"^(\d+(?:\.\d+)?)\s*Gb/sec(?:\s+\(\d+X(?: \w+)?\))?$")  # "100 Gb/sec (4X EDR)", "10 Gb/sec (4X)"
GID = re.compile(r"^[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){7}$")
LINK_LAYER = re.compile(r"^(InfiniBand|Ethernet|IB|Unknown)$")
READ = ("default gid", "state", "phys state", "rate", "link_layer")


@dataclass(frozen=True)
class IbstatusPort:
    device: str
    port: int
    default_gid: Optional[str]
    state: Optional[str]  # "ACTIVE", "DOWN", as ibstatus names them; None when not read
    physical_state: Optional[str]  # "LinkUp", "Disabled"
    rate_gbps: Optional[float]
    link_layer: Optional[str]


def _value(key: str, value: str) -> object:
    """The fact of one field line in the form ibstatus prints it; ``Unfit`` otherwise."""
    if key in ("state", "phys state"):
        match = CODED.match(value)
        if not match:
            raise Unfit(f"{key} {value!r} is not '<code>: <name>'")
        return match.group(1)
    if key == "rate":
        match = RATE.match(value)
        if not match:
            raise Unfit(f"rate {value!r} is not '<n> Gb/sec (<width> <speed>)'")
        return decimal(match.group(1), "rate")
    if key == "default gid" and not GID.match(value):
        raise Unfit(f"default gid {value!r} is not a GID")
    if key == "link_layer" and not LINK_LAYER.match(value):
        raise Unfit(f"link_layer {value!r} is neither InfiniBand nor Ethernet")
    return value


def _port(device: str, port: int, fields: dict[str, object]) -> IbstatusPort:
    return IbstatusPort(device, port, fields.get("default gid"), fields.get("state"), fields.get("phys state"),  # type: ignore[arg-type]
                        fields.get("rate"), fields.get("link_layer"))  # type: ignore[arg-type]


@parser(TOOL, "ibstatus: per RDMA port default GID, state, physical state, rate (Gb/s), link layer")
def parse_ibstatus(text: str) -> Parsed[tuple[IbstatusPort, ...]]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    ports: dict[tuple[str, int], dict[str, object]] = {}
    current: Optional[tuple[str, int]] = None
    for line in reading.content():
        header = HEADER.match(line.stripped)
        if header:
            current = (header.group(1), integer(header.group(2), "port"))
            if current in ports:
                reading.unread(line, f"{current[0]} port {current[1]} listed twice", current[0])
                current = None
            else:
                ports[current] = {}
                reading.used(line)
            continue
        field = FIELD.match(line.stripped)
        if current is None or field is None:
            reading.unread(line, "expected \"Infiniband device '<dev>' port <n> status:\" and its fields",
                           current[0] if current else "")
            continue
        key, value = field.group(1).strip(), field.group(2).strip()
        if key not in READ:
            reading.known(line)  # base lid, sm lid
            continue
        with reading.row(line, scope=current[0]):
            if key in ports[current]:
                raise Unfit(f"{key} given twice")
            ports[current][key] = _value(key, value)
    found = tuple(_port(device, port, fields) for (device, port), fields in ports.items())
    return reading.done(found, nothing="no \"Infiniband device '<dev>' port <n> status:\" block")
