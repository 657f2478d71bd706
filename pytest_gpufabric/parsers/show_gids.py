"""``show_gids`` (MLNX_OFED / DOCA script): the GID table of every RDMA port with its IPv4 address, RoCE version
and net device, read from ``/sys/class/infiniband/<dev>/ports/<n>/{gids,gid_attrs/types,gid_attrs/ndevs}``.

Rows are ``DEV PORT INDEX GID [IPv4] VER [DEV]`` (tabs or spaces); link-local GIDs have no IPv4 column. The
script ends with ``n_gids_found=<n>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import first_word
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

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
    declared: Optional[int] = None  # the script's closing n_gids_found=<n>; None when the output lacks it

    def get(self, device: str, port: int, index: int) -> Optional[GidEntry]:
        return next((e for e in self.entries if (e.device, e.port, e.index) == (device, port, index)), None)


def _row(line: Line) -> GidEntry:
    match = ROW.match(line.stripped)
    if not match:
        raise Unfit("expected '<dev> <port> <index> <gid> [<ipv4>] v1|v2 [<netdev>]'")
    ipv4 = match.group("ipv4")
    if ipv4 is not None:
        try:
            IPv4Address(ipv4)
        except ValueError:
            raise Unfit(f"{match.group('dev')} GID {match.group('index')}: {ipv4!r} is not an IPv4 address") from None
    return GidEntry(match.group("dev"), int(match.group("port")), int(match.group("index")), match.group("gid").lower(),
                    ipv4, match.group("ver"), match.group("netdev"))


@parser(TOOL, "show_gids: per RDMA port and GID index the GID, IPv4 address, RoCE version (v1/v2), net device")
def parse_show_gids(text: str) -> Parsed[GidTable]:
    """Each row is read whole or not at all (its cells have forms of their own: a row that lacks the IPv4 of a
    RoCE v2 GID still has its GID, version and net device in order). A row of another form costs only its own
    GID (kept unread, scoped to its device); the header, its rule and ``n_gids_found=<n>`` are known, the count
    kept as ``declared``."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    entries: list[GidEntry] = []
    declared: Optional[int] = None
    for line in reading.content():
        count = COUNT.match(line.stripped)
        if HEADER.match(line.stripped) or RULE.match(line.stripped):
            reading.known(line)
        elif count:
            declared = int(count.group(1))
            reading.used(line)
        else:
            with reading.row(line, scope=first_word(line)):
                entry = _row(line)
                if any((e.device, e.port, e.index) == (entry.device, entry.port, entry.index) for e in entries):
                    raise Unfit(f"{entry.device} port {entry.port} GID {entry.index} listed twice")
                entries.append(entry)
    return reading.done(GidTable(tuple(entries), declared), nothing="no GID row and no 'n_gids_found=' line")
