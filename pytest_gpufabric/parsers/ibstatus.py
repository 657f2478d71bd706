"""infiniband-diags ``ibstatus``: one block per RDMA port with its default GID, state, physical state, rate and
link layer, as the kernel's ``/sys/class/infiniband/<dev>/ports/<n>/`` files hold them (``4: ACTIVE``,
``5: LinkUp``: the number is the IBTA state code, the word its name)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_float

TOOL = "ibstatus"
HEADER = re.compile(r"^Infiniband device '([^']+)' port (\d+) status:$")
FIELD = re.compile(r"^([a-z_ ]+):\s*(.*)$")
CODED = re.compile(r"^\d+:\s*(\S+)$")  # "4: ACTIVE"
RATE = re.compile(r"^(\d+(?:\.\d+)?)\s*Gb/sec\b")
REQUIRED = ("state", "phys state")


@dataclass(frozen=True)
class IbstatusPort:
    device: str
    port: int
    default_gid: Optional[str]
    state: str  # "ACTIVE", "DOWN", as ibstatus names them
    physical_state: str  # "LinkUp", "Disabled"
    rate_gbps: Optional[float]
    link_layer: Optional[str]


def _coded(device: str, port: int, fields: dict[str, str], key: str) -> str:
    match = CODED.match(fields[key])
    if not match:
        fail(TOOL, f"{device} port {port}: {key} {fields[key]!r} is not '<code>: <name>'")
    return match.group(1)


def _port(device: str, port: int, fields: dict[str, str]) -> IbstatusPort:
    missing = [key for key in REQUIRED if key not in fields]
    if missing:
        fail(TOOL, f"{device} port {port}: no {', '.join(missing)} line (output truncated?)")
    rate = fields.get("rate")
    rate_match = RATE.match(rate) if rate is not None else None
    if rate is not None and rate_match is None:
        fail(TOOL, f"{device} port {port}: rate {rate!r} is not '<n> Gb/sec ...'")
    return IbstatusPort(
        device=device, port=port, default_gid=fields.get("default gid"), state=_coded(device, port, fields, "state"),
        physical_state=_coded(device, port, fields, "phys state"),
        rate_gbps=parse_float(TOOL, rate_match.group(1), f"{device} port {port} rate") if rate_match else None,
        link_layer=fields.get("link_layer"),
    )  # fmt: skip


@parser(TOOL, "ibstatus: per RDMA port default GID, state, physical state, rate (Gb/s), link layer")
def parse_ibstatus(text: str) -> tuple[IbstatusPort, ...]:
    ports: list[IbstatusPort] = []
    current: Optional[tuple[str, int, dict[str, str]]] = None
    for raw in clean_lines(TOOL, text):
        line = raw.strip()
        if not line:
            continue
        header = HEADER.match(line)
        if header:
            if current:
                ports.append(_port(*current))
            current = (header.group(1), int(header.group(2)), {})
            continue
        field = FIELD.match(line)
        if current is None or field is None:
            fail(TOOL, f"expected \"Infiniband device '<dev>' port <n> status:\" and its fields, found {line!r}")
        current[2][field.group(1).strip()] = field.group(2).strip()
    if current:
        ports.append(_port(*current))
    return tuple(ports)
