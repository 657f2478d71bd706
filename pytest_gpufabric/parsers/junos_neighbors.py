"""Junos ``show lldp neighbors`` and ``show ethernet-switching table``: who is at the other end of each port
(CAB-001).

``show lldp neighbors`` prints a table whose header has no dash line: columns of several words (``Local
Interface``, ``Parent Interface``, ``Chassis Id``, ``Port info``, ``System Name``), ``-`` where a port is in no
aggregate. ``show ethernet-switching table`` (ELS, QFX/EX) prints the MAC flags legend, the table's counts, then
rows ``VLAN MAC FLAGS AGE INTERFACE [NH-INDEX RTR-ID]``, whose interface is a logical unit (``xe-0/0/3.0``: port
``xe-0/0/3``); a row is read only when it is whole, however its columns were aligned."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Header, first_word, header_from_names
from pytest_gpufabric.switches.neighbors import LldpNeighborEntry, MacEntry, canonical_port, normalize_mac

LLDP_TOOL = "junos-lldp-neighbors"
MAC_TOOL = "junos-ethernet-switching-table"
LLDP_COLUMNS = ("Local Interface", "Parent Interface", "Chassis Id", "Port info", "System Name")
_LLDP_HEADER = re.compile(r"^Local Interface\s+Parent Interface\s+Chassis Id\s+Port info\s+System Name$")
_PROMPT = re.compile(r"^\{(master|backup|linecard|primary|secondary)(:\d+)?\}$")
_MAC_KNOWN = re.compile(
    r"^(MAC flags \(.*|\(?SE - statistics enabled.*|Ethernet switching table : \d+ entries, \d+ learned"
    r"|Routing instance : \S+|Vlan MAC MAC Age Logical( NH RTR)?|name address flags interface( Index ID)?)$"
)
_LOGICAL_INTERFACE = re.compile(r"^(ge|xe|et|mge|ae|irb|vtep|esi)[-.\w/:]*(\.\d+)$")
_AGE = re.compile(r"^(-|\d+|\d+:\d\d(:\d\d)?)$")


@parser(LLDP_TOOL, "show lldp neighbors (Junos): per port, the neighbor's chassis ID, port and system name")
def parse_lldp_neighbors(text: str) -> Parsed[tuple[LldpNeighborEntry, ...]]:
    reading = Reading(LLDP_TOOL, text)
    entries: list[LldpNeighborEntry] = []
    header: Header | None = None
    for line in reading.content():
        if _PROMPT.match(line.stripped):
            reading.known(line)
        elif _LLDP_HEADER.match(line.words):
            header = header_from_names(line, LLDP_COLUMNS)
            reading.known(line)
        elif header is not None:
            with reading.row(line, scope=first_word(line)):
                cells = header.cells(line)
                port, parent, chassis, port_info, name = (cells[column] for column in LLDP_COLUMNS)
                if not port or " " in port or not parent or not chassis or not port_info:
                    raise Unfit(f"expected a local interface, a parent (or -), a chassis ID and port info, found {line.stripped!r}")
                entries.append(LldpNeighborEntry(canonical_port("juniper", port), name or None, port_info, None, chassis))
    return reading.done(tuple(entries), nothing="no LLDP neighbor table")


def _mac_row(words: list[str]) -> MacEntry:
    if len(words) not in (5, 7):
        raise Unfit(f"expected VLAN, MAC, flags, age and interface (and NH index, RTR ID), found {len(words)} words")
    vlan, address, flags, age, interface, *ids = words
    mac = normalize_mac(address)
    if mac is None:
        raise Unfit(f"{address!r} is not a MAC address")
    if not re.fullmatch(r"[SDLPCRO]+|SE|NM", flags) or not _AGE.match(age):
        raise Unfit(f"MAC flags {flags!r} or age {age!r} not understood")
    if not _LOGICAL_INTERFACE.match(interface):
        raise Unfit(f"logical interface: {interface!r} not understood")
    for value in ids:
        integer(value, "NH index / RTR ID")
    return MacEntry(mac, canonical_port("juniper", interface), vlan, "static" if "S" in flags else "dynamic")


@parser(MAC_TOOL, "show ethernet-switching table (Junos ELS): the MAC addresses learned on each port")
def parse_ethernet_switching_table(text: str) -> Parsed[tuple[MacEntry, ...]]:
    reading = Reading(MAC_TOOL, text)
    entries: list[MacEntry] = []
    for line in reading.content():
        if _MAC_KNOWN.match(line.words) or _PROMPT.match(line.stripped):
            reading.known(line)
            continue
        words = line.words.split()
        with reading.row(line, scope=words[4] if len(words) > 4 else ""):
            entries.append(_mac_row(words))
    return reading.done(tuple(entries), nothing="no Ethernet switching table")
