"""The kernel's RDMA port files, ``/sys/class/infiniband/<dev>/ports/<n>/<attribute>``, as ``grep -H`` prints
them (``<path>:<value>``): state (``4: ACTIVE``), phys_state (``5: LinkUp``), rate, link_layer, and per GID
index ``gids/<i>``, ``gid_attrs/types/<i>``, ``gid_attrs/ndevs/<i>``. The same files ``rdma``, ``ibstat``,
``ibstatus`` and ``show_gids`` read, so a node without those tools still has the facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "sysfs-infiniband"
LINE = re.compile(r"^/sys/class/infiniband/([^/]+)/ports/(\d+)/([a-z_]+(?:/[a-z_]+)*?)(?:/(\d+))?:(.*)$")
PORT_FILES = ("state", "phys_state", "rate", "link_layer")
GID_FILES = {"gids": "gid", "gid_attrs/types": "type", "gid_attrs/ndevs": "netdev"}
CODED = re.compile(r"^\d+:\s*(\S+)$")


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


def _check_coded(port: SysfsPort, name: str) -> None:
    if name in port.attributes and port.coded(name) is None:
        fail(TOOL, f"{port.device} port {port.port}: {name} {port.attributes[name]!r} is not '<code>: <name>'")


@parser(TOOL, "grep -H . /sys/class/infiniband/*/ports/*/...: per RDMA port state, phys_state, rate, link layer, GIDs")
def parse_sysfs_infiniband(text: str) -> SysfsInfiniband:
    ports: dict[tuple[str, int], SysfsPort] = {}
    for raw in clean_lines(TOOL, text):
        line = raw.strip()
        if not line:
            continue
        match = LINE.match(line)
        if not match:
            fail(TOOL, f"expected '/sys/class/infiniband/<dev>/ports/<n>/<file>:<value>', found {line!r}")
        device, number, name, index, value = match.groups()
        port = ports.setdefault((device, int(number)), SysfsPort(device, int(number)))
        if index is not None and name in GID_FILES:
            port.gids.setdefault(int(index), {})[GID_FILES[name]] = value.strip()
        elif index is None and name in PORT_FILES:
            port.attributes[name] = value.strip()
        else:
            fail(TOOL, f"{device} port {number}: unexpected file {name + ('/' + index if index else '')!r}")
    for port in ports.values():
        _check_coded(port, "state")
        _check_coded(port, "phys_state")
    return SysfsInfiniband(tuple(ports.values()))
