"""Arista EOS ``show lldp neighbors`` and ``show mac address-table``: who is at the other end of each port (CAB-001).

``show lldp neighbors`` prints a table under its counters, with or without a dash line under the header
(``Port  Neighbor Device ID  Neighbor Port ID  TTL``); a Linux host running lldpd is named by its host name and
its port by the NIC's MAC address (``aac1.ab8a.37da``). Port names are EOS's short forms (``Et3/1``), given here
as the inventory writes them (``Ethernet3/1``). ``show mac address-table`` lists the unicast table, then the
multicast one; a row is read only when it is whole (VLAN, MAC, type, one port, and moves with the last move)."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Header, first_word, header_from_dashes, header_from_names, is_dash_line
from pytest_gpufabric.switches.neighbors import LldpNeighborEntry, MacEntry, canonical_port, normalize_mac

LLDP_TOOL = "eos-lldp-neighbors"
MAC_TOOL = "eos-mac-address-table"
_COUNTER = re.compile(r"^(Last table change time|Number of table (inserts|deletes|drops|age-outs))\s*:\s*\S.*$")
_LLDP_HEADER = re.compile(r"^Port\s+Neighbor Device ID\s+Neighbor Port ID\s+TTL$")
_MAC_HEADER = re.compile(r"^Vlan\s+Mac Address\s+Type\s+Ports(\s+Moves\s+Last Move)?$", re.IGNORECASE)
_MAC_TITLE = re.compile(r"^(Multicast )?Mac Address Table$", re.IGNORECASE)
_MAC_TOTAL = re.compile(r"^Total Mac Addresses for this criterion: \d+$", re.IGNORECASE)
_AGO = re.compile(r"^\d+ ago$|^(\d+ days?, )?\d+:\d\d:\d\d ago$")


def _lldp_header(reading: Reading, lines: list[Line], index: int) -> Header:
    header = lines[index]
    following = lines[index + 1] if index + 1 < len(lines) else None
    reading.known(header)
    if following is not None and is_dash_line(following):
        reading.known(following)
        return header_from_dashes(header, following)
    return header_from_names(header, ("Neighbor Device ID", "Neighbor Port ID"))


@parser(LLDP_TOOL, "show lldp neighbors (Arista EOS): per port, the neighbor's name and port ID")
def parse_lldp_neighbors(text: str) -> Parsed[tuple[LldpNeighborEntry, ...]]:
    reading = Reading(LLDP_TOOL, text)
    entries: list[LldpNeighborEntry] = []
    lines = [line for line in reading.lines if line.stripped]
    header: Header | None = None
    for index, line in enumerate(lines):
        if reading.outcome(line) is not None:
            continue
        if _COUNTER.match(line.words):
            reading.known(line)
        elif _LLDP_HEADER.match(line.words):
            header = _lldp_header(reading, lines, index)
        elif header is not None:
            with reading.row(line, scope=first_word(line)):
                cells = header.cells(line)
                port, name, port_id, ttl = (cells[column] for column in header.names)
                if not port or " " in port or not name or not port_id:
                    raise Unfit(f"expected a port, a neighbor name and a port ID, found {line.stripped!r}")
                integer(ttl, "TTL")
                entries.append(LldpNeighborEntry(canonical_port("arista", port), name, port_id))
    return reading.done(tuple(entries), nothing="no LLDP neighbor table")


def _mac_row(words: list[str]) -> MacEntry:
    """``VLAN MAC TYPE PORT [MOVES LAST-MOVE...]`` of the unicast table, whole or refused."""
    if len(words) < 4:
        raise Unfit("expected VLAN, MAC address, type and port")
    vlan, address, kind, port, *rest = words
    mac = normalize_mac(address)
    if mac is None:
        raise Unfit(f"{address!r} is not a MAC address")
    if vlan != "All":
        integer(vlan, "VLAN")
    if rest:
        integer(rest[0], "Moves")
        if not _AGO.match(" ".join(rest[1:])):
            raise Unfit(f"Last Move: expected a time ago, found {' '.join(rest[1:])!r}")
    return MacEntry(mac, canonical_port("arista", port), vlan, kind.lower())


@parser(MAC_TOOL, "show mac address-table (Arista EOS): the unicast MAC addresses learned on each port")
def parse_mac_address_table(text: str) -> Parsed[tuple[MacEntry, ...]]:
    reading = Reading(MAC_TOOL, text)
    entries: list[MacEntry] = []
    multicast = False
    for line in reading.content():
        words = line.words
        if _MAC_TITLE.match(words):
            multicast = words.lower().startswith("multicast")
            reading.known(line)
        elif is_dash_line(line) or _MAC_HEADER.match(words) or _MAC_TOTAL.match(words):
            reading.known(line)
        elif multicast:
            reading.known(line)  # a group's member ports, not an address a host port learned
        else:
            with reading.row(line, scope=words.split()[3] if len(words.split()) > 3 else ""):
                entries.append(_mac_row(words.split()))
    return reading.done(tuple(entries), nothing="no MAC address table")
