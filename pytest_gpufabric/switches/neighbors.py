"""What a leaf switch says is at the other end of its ports, the same for every switch OS: the LLDP neighbor of
each port, and the MAC addresses each port has learned (CAB-001). Each OS's parsers fill these; the reads of
each OS (read-only command forms, ``readonly.py``) are listed here."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_HEX_ONLY = re.compile(r"[^0-9a-f]")
# EOS abbreviates its interface names in its tables (Et3/1 is Ethernet3/1); SONiC and Junos print them whole.
_EOS_ABBREVIATIONS = (("Et", "Ethernet"), ("Ma", "Management"), ("Po", "Port-Channel"))


@dataclass(frozen=True)
class LldpNeighborEntry:
    """One neighbor a switch port hears over LLDP (None where the output shows no such field)."""

    port: str  # the switch's own port, as the inventory names it (``canonical_port``)
    system_name: str | None
    port_id: str | None  # the neighbor's port ID: an interface name, or a MAC address (a Linux host's lldpd)
    port_description: str | None = None
    chassis_id: str | None = None


@dataclass(frozen=True)
class MacEntry:
    """A MAC address a switch port has learned."""

    mac: str  # lower case, colon separated (``normalize_mac``)
    port: str  # as the inventory names it; a logical unit (``xe-0/0/5.0``) is given as its port (``xe-0/0/5``)
    vlan: str | None = None
    kind: str | None = None  # dynamic, static, ... as the switch words it


def normalize_mac(text: str) -> str | None:
    """``aa:bb:cc:dd:ee:ff`` from ``aabb.ccdd.eeff``, ``AA:BB:...``, ``aa-bb-...``; None when ``text`` is no MAC."""
    value = text.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}|[0-9a-f]{2}([:-][0-9a-f]{2}){5}", value):
        return None
    digits = _HEX_ONLY.sub("", value)
    return ":".join(digits[i:i + 2] for i in range(0, 12, 2))


def canonical_port(switch_os: str, name: str) -> str:
    """The port name as the inventory writes it (EOS ``Et3/1`` -> ``Ethernet3/1``; Junos ``xe-0/0/5:0.0`` ->
    ``xe-0/0/5:0``, the physical port of a logical unit)."""
    if switch_os == "arista":
        for short, full in _EOS_ABBREVIATIONS:
            if re.fullmatch(rf"{short}\d[\d/]*", name):
                return full + name[len(short):]
        return name
    if switch_os == "juniper":
        return re.sub(r"\.\d+$", "", name)
    return name


def is_host_facing(switch_os: str, port: str) -> bool:
    """Whether a port can be a NIC's own cable (a physical Ethernet port, not a LAG, VLAN, tunnel or the CPU)."""
    if switch_os == "juniper":
        return bool(re.fullmatch(r"(ge|xe|et|mge)-\d+/\d+/\d+(:\d+)?", port))
    return bool(re.fullmatch(r"Ethernet\d+(/\d+)*", port))


@dataclass(frozen=True)
class NeighborReads:
    """The commands of one switch OS for its LLDP neighbors and its MAC address table, and their parsers."""

    lldp: tuple[str, Callable[[str], object]]
    mac_table: tuple[str, Callable[[str], object]]


def neighbor_reads() -> dict[str, NeighborReads]:
    """The reads of every switch OS (imported here so that the parsers register once the OS is asked)."""
    from pytest_gpufabric.parsers import eos_neighbors, junos_neighbors, sonic_neighbors

    return {
        "arista": NeighborReads(("show lldp neighbors", eos_neighbors.parse_lldp_neighbors),
                                ("show mac address-table", eos_neighbors.parse_mac_address_table)),
        "sonic": NeighborReads(("show lldp table", sonic_neighbors.parse_lldp_table),
                               ("show mac", sonic_neighbors.parse_mac)),
        "juniper": NeighborReads(("show lldp neighbors", junos_neighbors.parse_lldp_neighbors),
                                 ("show ethernet-switching table", junos_neighbors.parse_ethernet_switching_table)),
    }
