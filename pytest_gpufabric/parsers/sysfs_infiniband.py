"""The kernel's RDMA port files, ``/sys/class/infiniband/<dev>/ports/<n>/<attribute>``, as ``grep -H`` prints
them (``<path>:<value>``): state (``4: ACTIVE``), phys_state (``5: LinkUp``), rate, link_layer, and per GID
index ``gids/<i>``, ``gid_attrs/types/<i>``, ``gid_attrs/ndevs/<i>``. The same files ``rdma``, ``ibstat``,
``ibstatus`` and ``show_gids`` read, so a node without those tools still has the facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "sysfs-infiniband"
LINE = re.compile(r"^/sys/class/infiniband/([^/]+)/ports/(\d+)/([a-z_]+(?:/[a-z_]+)*?)(?:/(\d+))?:(.*)$")
PORT_FILES = ("state", "phys_state", "rate", "link_layer")
GID_FILES = {"gids": "gid", "gid_attrs/types": "type", "gid_attrs/ndevs": "netdev"}
CODED = re.compile(r"^\d+:\s*(\S+)$")
CODED_FILES = ("state", "phys_state")


@dataclass
class SysfsPort:
    device: str
    port: int
    attributes: dict[str, str] = field(default_factory=dict)
    gids: dict[int, dict[str, str]] = field(default_factory=dict)

    def coded(self, name: str) -> Optional[str]:
        """The name of a ``<code>: <name>`` file (state, phys_state); None when not read."""
        value = self.attributes.get(name)
        match = CODED.match(value) if value is not None else None
        return match.group(1) if match else None

    @property
    def netdev(self) -> Optional[str]:
        """The net device of GID 0 (a RoCE port's own interface); None for InfiniBand ports."""
        return self.gids.get(0, {}).get("netdev")


@dataclass(frozen=True)
class SysfsInfiniband:
    ports: tuple[SysfsPort, ...]

    def get(self, device: str, port: int = 1) -> Optional[SysfsPort]:
        return next((p for p in self.ports if (p.device, p.port) == (device, port)), None)


@parser(TOOL, "grep -H . /sys/class/infiniband/*/ports/*/...: per RDMA port state, phys_state, rate, link layer, GIDs")
def parse_sysfs_infiniband(text: str) -> Parsed[SysfsInfiniband]:
    """Every ``<path>:<value>`` line of a port file; another port file (``lid``, ``counters/...``) is known, a
    line of another form or a state without its code costs only its own value (kept unread, scoped to the
    device)."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    ports: dict[tuple[str, int], SysfsPort] = {}
    for line in reading.content():
        match = LINE.match(line.stripped)
        if not match:
            reading.unread(line, "expected '/sys/class/infiniband/<dev>/ports/<n>/<file>:<value>'")
            continue
        device, number, name, index, value = match.groups()
        value = value.strip()
        if not (index is not None and name in GID_FILES) and not (index is None and name in PORT_FILES):
            reading.known(line)  # a port file no check reads
            continue
        with reading.row(line, scope=device):
            if name in CODED_FILES and not CODED.match(value):
                raise Unfit(f"{device} port {number}: {name} {value!r} is not '<code>: <name>'")
            port = ports.setdefault((device, integer(number, "port")), SysfsPort(device, int(number)))
            target = port.gids.setdefault(int(index), {}) if index is not None else port.attributes
            key = GID_FILES[name] if index is not None else name
            if key in target:
                raise Unfit(f"{device} port {number}: {name} given twice")
            target[key] = value
    return reading.done(SysfsInfiniband(tuple(ports.values())), nothing="no RDMA port file line")
