"""``lldpctl -f keyvalue`` (lldpd): the LLDP neighbor of each local interface: switch name, description,
management addresses and port.

One ``lldp.<interface>.<field>=<value>`` line per value; the interface may itself contain dots (``eth0.100``).
lldpd before 0.9.2 (lldpd commit 8755512e, 2016) printed a value's line breaks as they were, so a system
description of several lines (Cisco IOS, Junos banners) continues on lines of its own: those are read as the
continuation of the free-text value above them, and only of a free-text value. A neighbor advertising several
management addresses gives one ``mgmt-ip`` line each. Older lldpd put the TTL under the port (``port.ttl``).

The switch port the inventory names is the port id of subtype ``ifname``, else of subtype ``local`` unless it is
a number (Junos advertises the SNMP ifIndex as the local port id and names the port in the description:
Solvik/netbox-agent tests/fixtures/lldp/qfx.txt), else the port description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "lldpctl-keyvalue"
KEY = re.compile(r"^lldp\.(?P<iface>.+?)\.(?P<section>via|rid|age|chassis|port|vlan|ppvid|pi|lldp-med|unknown-tlvs)(?:\.(?P<rest>.+))?$")
PORT_ID_TYPES = ("ifname", "local", "mac", "ip")  # lldpd's keys for the port id by its subtype
FREE_TEXT = frozenset({"chassis.descr", "port.descr"})  # values that may run over several lines (lldpd < 0.9.2)


@dataclass(frozen=True)
class LldpNeighbor:
    """The neighbor seen on one local interface (None where it advertises nothing)."""

    interface: str
    switch: Optional[str]
    description: Optional[str]
    management_ipv4: Optional[str]
    port: Optional[str]
    port_id: Optional[str] = None  # as advertised, of subtype ``port_id_type``
    port_id_type: Optional[str] = None  # ifname, local, mac, ip
    port_description: Optional[str] = None
    management_addresses: tuple[str, ...] = ()
    neighbors: int = 1  # more than one: the interface sees several neighbors, and none is given (see the parser)


def _first_ipv4(values: list[str]) -> Optional[str]:
    for value in values:
        try:
            return str(IPv4Address(value))
        except ValueError:
            continue
    return None


def switch_port(port_id: Optional[str], port_id_type: Optional[str], description: Optional[str]) -> Optional[str]:
    """The port name to write in the inventory (see the module docstring)."""
    if port_id and port_id_type == "ifname":
        return port_id
    if port_id and port_id_type == "local" and not port_id.isdigit():
        return port_id
    return description or port_id


def _neighbor(iface: str, values: dict[str, list[str]]) -> LldpNeighbor:
    port_type = next((kind for kind in PORT_ID_TYPES if f"port.{kind}" in values), None)
    port_id = values[f"port.{port_type}"][0] if port_type else None
    description = next(iter(values.get("port.descr", [])), None)
    return LldpNeighbor(
        interface=iface,
        switch=next(iter(values.get("chassis.name", [])), None),
        description=next(iter(values.get("chassis.descr", [])), None),
        management_ipv4=_first_ipv4(values.get("chassis.mgmt-ip", [])),
        port=switch_port(port_id, port_type, description),
        port_id=port_id,
        port_id_type=port_type,
        port_description=description,
        management_addresses=tuple(values.get("chassis.mgmt-ip", [])),
    )


@parser(TOOL, "lldpctl -f keyvalue: per local interface, the neighbor's name, description, management IPv4, port")
def parse_lldpctl_keyvalue(text: str) -> Parsed[dict[str, LldpNeighbor]]:
    """Neighbors by local interface. lldpctl prints nothing when it sees no neighbor: an empty output is a
    ParseError here as for every parser, and the caller that ran lldpctl successfully reads it as none. An
    interface with more than one neighbor (two ``via``/``rid`` groups: a switch seen by LLDP and CDP, a device in
    between) gives a neighbor without switch, port or addresses, ``neighbors`` saying how many it sees, and a
    note: which one is at the other end of the cable cannot be told."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    fields: dict[str, dict[str, list[str]]] = {}
    last: tuple[str, str] | None = None  # (interface, field) of the last value, for a continuation line
    for line in reading.content():
        key, sep, value = line.stripped.partition("=")
        match = KEY.match(key) if sep else None
        if match:
            name = f"{match.group('section')}.{match.group('rest')}" if match.group("rest") else match.group("section")
            fields.setdefault(match.group("iface"), {}).setdefault(name, []).append(value)
            reading.used(line)
            last = (match.group("iface"), name)
        elif last is not None and last[1] in FREE_TEXT:
            values = fields[last[0]][last[1]]
            values[-1] = f"{values[-1]}\n{line.text.strip()}"
            reading.used(line)
        else:
            reading.unread(line, "expected 'lldp.<interface>.<field>=<value>'")
            last = None
    neighbors = {}
    for iface, values in fields.items():
        groups = max(len(values.get("via", [])), len(values.get("rid", [])))
        if groups > 1:
            reading.notes.append(f"{groups} LLDP neighbors on {iface}: which one is at the other end of the cable "
                                 "cannot be told, none is read")
            neighbors[iface] = LldpNeighbor(iface, None, None, None, None, neighbors=groups)
            continue
        neighbors[iface] = _neighbor(iface, values)
    return reading.done(neighbors, nothing="no 'lldp.<interface>.<field>=<value>' line")
