"""CAB-001: where each NIC's cable really ends, from what the host and the switches say, against the plan.

Sources, best first: the host's own LLDP (``lldpctl -f keyvalue``: the neighbor on the NIC's interface), the
switches' LLDP neighbor tables (a neighbor whose port ID is the NIC's MAC address, or whose system and port name
the node and the NIC's interface), then the switches' MAC address tables (the NIC's MAC learned on a host-facing
port). The first source that sees the NIC decides; the others are not asked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_gpufabric.parsers.lldp import LldpNeighbor
from pytest_gpufabric.parsers.reading import Parsed, facts_of
from pytest_gpufabric.switches.neighbors import (
    LldpNeighborEntry,
    MacEntry,
    canonical_port,
    is_host_facing,
    normalize_mac,
)


@dataclass(frozen=True)
class Sighting:
    """A switch port where a source sees the NIC's cable end."""

    switch: str
    port: str
    source: str  # e.g. "leaf1 `show lldp neighbors`: node02 port ID 7c:c2:55:02:00:25"


@dataclass(frozen=True)
class NeighborIndex:
    """One switch's LLDP neighbors by the MAC address in their port ID, and by (system name, port name)."""

    by_mac: Mapping[str, tuple[LldpNeighborEntry, ...]]
    by_name: Mapping[tuple[str, str], tuple[LldpNeighborEntry, ...]]


def _short(name: str) -> str:
    return name.split(".", 1)[0].lower()


def _port_names(entry: LldpNeighborEntry) -> set[str]:
    """The interface names a neighbor's port ID and description can carry (lldpd: ``Interface 8 as enp5s0f0``)."""
    names = {entry.port_id or ""}
    if entry.port_description:
        names |= {entry.port_description, entry.port_description.split()[-1]}
    return {name for name in names if name}


def neighbor_index(parsed: Parsed[tuple[LldpNeighborEntry, ...]] | tuple[LldpNeighborEntry, ...]) -> NeighborIndex:
    by_mac: dict[str, list[LldpNeighborEntry]] = {}
    by_name: dict[tuple[str, str], list[LldpNeighborEntry]] = {}
    for entry in facts_of(parsed):
        mac = normalize_mac(entry.port_id or "")
        if mac is not None:
            by_mac.setdefault(mac, []).append(entry)
        if entry.system_name:
            for name in _port_names(entry):
                by_name.setdefault((_short(entry.system_name), name), []).append(entry)
    return NeighborIndex({k: tuple(v) for k, v in by_mac.items()}, {k: tuple(v) for k, v in by_name.items()})


def mac_index(parsed: Parsed[tuple[MacEntry, ...]] | tuple[MacEntry, ...]) -> Mapping[str, tuple[MacEntry, ...]]:
    found: dict[str, list[MacEntry]] = {}
    for entry in facts_of(parsed):
        found.setdefault(entry.mac, []).append(entry)
    return {mac: tuple(entries) for mac, entries in found.items()}


def seen_by_host(neighbors: Mapping[str, LldpNeighbor], netdev: str, node: str, switch_os: Mapping[str, str]) -> Sighting | None:
    """The switch and port the host's lldpd hears on ``netdev`` (the port as the inventory names it)."""
    neighbor = neighbors.get(netdev)
    if neighbor is None or not neighbor.switch or not neighbor.port:
        return None
    switch = neighbor.switch.split(".", 1)[0] if neighbor.switch.split(".", 1)[0] in switch_os else neighbor.switch
    port = canonical_port(switch_os.get(switch, ""), neighbor.port)
    return Sighting(switch, port, f"{node} `lldpctl -f keyvalue`: {netdev} -> {neighbor.switch} port {neighbor.port}"
                    + (f" ({neighbor.port_description})" if neighbor.port_description else ""))


def seen_in_lldp_tables(tables: Mapping[str, NeighborIndex], commands: Mapping[str, str], node: str, netdev: str,
                        mac: str | None) -> list[Sighting]:
    """Every switch port whose LLDP neighbor is the NIC (by MAC port ID, else by host and interface name)."""
    found = []
    for switch, index in tables.items():
        entries = (index.by_mac.get(mac, ()) if mac else ()) or index.by_name.get((_short(node), netdev), ())
        for entry in entries:
            found.append(Sighting(switch, entry.port, f"{switch} `{commands[switch]}`: {entry.port} neighbor "
                                                      f"{entry.system_name} port {entry.port_id}"))
    return found


def seen_in_mac_tables(tables: Mapping[str, Mapping[str, tuple[MacEntry, ...]]], commands: Mapping[str, str],
                       switch_os: Mapping[str, str], mac: str) -> list[Sighting]:
    """Every host-facing switch port that learned the NIC's MAC address (an uplink or a LAG learns it too)."""
    return [Sighting(switch, entry.port, f"{switch} `{commands[switch]}`: {mac} learned on {entry.port}"
                                         + (f" (VLAN {entry.vlan})" if entry.vlan else ""))
            for switch, index in tables.items() for entry in index.get(mac, ())
            if is_host_facing(switch_os[switch], entry.port)]


def distinct(sightings: Iterable[Sighting]) -> list[Sighting]:
    """One sighting per switch port, in order."""
    seen: dict[tuple[str, str], Sighting] = {}
    for sighting in sightings:
        seen.setdefault((sighting.switch, sighting.port), sighting)
    return list(seen.values())


def describe_both_ends(nic: str, sighting: Sighting, planned_switch: str, planned_port: str | None, plan_source: str) -> str:
    """``node02/bnxt_re6 is cabled to leaf1 Ethernet17/1 (...); planned: leaf3 Ethernet2/1 (site.yaml)``."""
    planned = f"{planned_switch} {planned_port}" if planned_port else f"{planned_switch} (any port)"
    return f"{nic} is cabled to {sighting.switch} {sighting.port} ({sighting.source}); planned: {planned} ({plan_source})"


def rail_detail(rail: int, leaves: Sequence[str] | frozenset[str], seen_switch: str) -> str:
    return f"rail {rail}: planned on {', '.join(sorted(leaves)) or 'no switch'}; seen on {seen_switch}"
