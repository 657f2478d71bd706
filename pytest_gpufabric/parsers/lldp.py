"""``lldpctl -f keyvalue`` (lldpd): the LLDP neighbor of each local interface: switch name, description,
management address and port."""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_text, fail

TOOL = "lldpctl-keyvalue"
# lldp.<interface>.<section>[.<rest>]=<value>; the interface may itself contain dots (eth0.100).
KEY = re.compile(r"^lldp\.(?P<iface>.+?)\.(?P<section>via|rid|age|chassis|port|vlan|ppvid|pi|lldp-med|unknown-tlvs)(?:\.(?P<rest>.+))?$")
PORT_KEYS = ("ifname", "local", "descr")  # the port id as the switch names it, best first


@dataclass(frozen=True)
class LldpNeighbor:
    """The neighbor seen on one local interface (None where it advertises nothing)."""

    interface: str
    switch: Optional[str]
    description: Optional[str]
    management_ipv4: Optional[str]
    port: Optional[str]
    port_description: Optional[str] = None  # SONiC sends its port alias as the ID and its name here


def _first_ipv4(values: list[str]) -> Optional[str]:
    for value in values:
        try:
            return str(IPv4Address(value))
        except ValueError:
            continue
    return None


@parser(TOOL, "lldpctl -f keyvalue: per local interface, the neighbor's name, description, management IPv4, port")
def parse_lldpctl_keyvalue(text: str) -> dict[str, LldpNeighbor]:
    """Neighbors by local interface. lldpctl prints nothing when it sees no neighbor: an empty output is a
    ParseError here as for every parser, and the caller that ran lldpctl successfully reads it as none."""
    fields: dict[str, dict[str, list[str]]] = {}
    for line in clean_text(TOOL, text).splitlines():
        if not line.strip():
            continue
        key, sep, value = line.strip().partition("=")
        match = KEY.match(key)
        if not sep or not match:
            fail(TOOL, f"expected 'lldp.<interface>.<field>=<value>', found {line.strip()[:80]!r}")
        name = f"{match.group('section')}.{match.group('rest')}" if match.group("rest") else match.group("section")
        fields.setdefault(match.group("iface"), {}).setdefault(name, []).append(value)
    return {
        iface: LldpNeighbor(
            interface=iface,
            switch=next(iter(values.get("chassis.name", [])), None),
            description=next(iter(values.get("chassis.descr", [])), None),
            management_ipv4=_first_ipv4(values.get("chassis.mgmt-ip", [])),
            port=next((values[f"port.{key}"][0] for key in PORT_KEYS if f"port.{key}" in values), None),
            port_description=next(iter(values.get("port.descr", [])), None),
        )
        for iface, values in fields.items()
    }
