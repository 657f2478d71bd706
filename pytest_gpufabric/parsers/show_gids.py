"""``show_gids`` (MLNX_OFED / DOCA script): the GID table of every RDMA port with its IPv4 address, RoCE version
and net device, read from ``/sys/class/infiniband/<dev>/ports/<n>/{gids,gid_attrs/types,gid_attrs/ndevs}``.

Rows are ``DEV PORT INDEX GID [IPv4] VER [DEV]`` (tabs or spaces); link-local GIDs have no IPv4 column. The
script ends with ``n_gids_found=<n>``, which must agree with the rows when present.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "show-gids"
HEADER = re.compile(r"^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV$")
RULE = re.compile(r"^-+(\s+-+)+$")
COUNT = re.compile(r"^n_gids_found=(\d+)$")
ROW = re.compile(
    r"^(?P<dev>\S+)\s+(?P<port>\d+)\s+(?P<index>\d+)\s+(?P<gid>[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7})"
    r"(?:\s+(?P<ipv4>\d+\.\d+\.\d+\.\d+))?\s+(?P<ver>v[12])(?:\s+(?P<netdev>\S+))?$"
)


@dataclass(frozen=True)
class GidEntry:
    device: str
    port: int
    index: int
    gid: str
    ipv4: Optional[str]
    version: str  # "v1" (RoCE v1), "v2" (RoCE v2)
    netdev: Optional[str]

    @property
    def roce_type(self) -> str:
        """The words of ``/sys/.../gid_attrs/types/<n>``: ``RoCE v2``, ``IB/RoCE v1``."""
        return "RoCE v2" if self.version == "v2" else "IB/RoCE v1"


@dataclass(frozen=True)
class GidTable:
    entries: tuple[GidEntry, ...]

    def get(self, device: str, port: int, index: int) -> Optional[GidEntry]:
        return next((e for e in self.entries if (e.device, e.port, e.index) == (device, port, index)), None)


def _row(line: str) -> GidEntry:
    match = ROW.match(line)
    if not match:
        fail(TOOL, f"expected '<dev> <port> <index> <gid> [<ipv4>] v1|v2 [<netdev>]', found {line!r}")
    ipv4 = match.group("ipv4")
    if ipv4 is not None:
        try:
            IPv4Address(ipv4)
        except ValueError:
            fail(TOOL, f"{match.group('dev')} GID {match.group('index')}: {ipv4!r} is not an IPv4 address")
    return GidEntry(match.group("dev"), int(match.group("port")), int(match.group("index")), match.group("gid").lower(),
                    ipv4, match.group("ver"), match.group("netdev"))


@parser(TOOL, "show_gids: per RDMA port and GID index the GID, IPv4 address, RoCE version (v1/v2), net device")
def parse_show_gids(text: str) -> GidTable:
    lines = [line.strip() for line in clean_lines(TOOL, text) if line.strip()]
    if not HEADER.match(lines[0]):
        fail(TOOL, f"expected the header 'DEV PORT INDEX GID IPv4 VER DEV', found {lines[0]!r}")
    body = lines[2:] if len(lines) > 1 and RULE.match(lines[1]) else lines[1:]
    count = COUNT.match(body[-1]) if body else None
    entries = tuple(_row(line) for line in (body[:-1] if count else body))
    if count and int(count.group(1)) != len(entries):
        fail(TOOL, f"n_gids_found={count.group(1)} but {len(entries)} GID rows (output truncated?)")
    return GidTable(entries)
