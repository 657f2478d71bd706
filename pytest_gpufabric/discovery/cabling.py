"""Switch and port of each NIC from LLDP, and the switches they name (OS from the system description)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_gpufabric.discovery.probe import LLDP, FoundNic, NodeFacts
from pytest_gpufabric.inventory import rules
from pytest_gpufabric.inventory.model import Switch, SshConfig

# The switch OS as its LLDP system description names it; SONiC first (its HwSku may name Arista hardware).
OS_MARKERS = (
    ("sonic", re.compile(r"\bSONiC\b", re.IGNORECASE)),
    ("arista", re.compile(r"\bArista Networks EOS\b|\bEOS version\b")),
    ("juniper", re.compile(r"\bJuniper Networks\b|\bJUNOS\b", re.IGNORECASE)),
)


def switch_os(description: str | None) -> str | None:
    for name, marker in OS_MARKERS:
        if description and marker.search(description):
            return name
    return None


@dataclass(frozen=True)
class Cable:
    """Where a NIC is cabled, or why that is left to the user."""

    switch: str | None
    port: str | None
    comment: str


@dataclass
class Cabling:
    """The cabling of every NIC, the switches it names, and ports claimed twice."""

    ssh: SshConfig
    switches: dict[str, Switch] = field(default_factory=dict)
    claimed: dict[tuple[str, str], str] = field(default_factory=dict)
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # (node, message)

    def cable(self, facts: NodeFacts, nic: FoundNic) -> Cable:
        neighbor = nic.neighbor
        unreadable = facts.gap(LLDP)
        if unreadable is not None:
            return Cable(None, None, f"{unreadable.describe()}; fill in switch and switch_port")
        if not facts.lldp_answered:
            return Cable(None, None, "LLDP did not answer (lldpctl), or was not asked; fill in switch and switch_port")
        if neighbor is not None and neighbor.neighbors > 1:
            return Cable(None, None, f"{neighbor.neighbors} LLDP neighbors on {nic.netdev}: which one is cabled cannot "
                                     "be told; fill in switch and switch_port")
        if neighbor is None or not neighbor.switch or not neighbor.port:
            return Cable(None, None, f"no LLDP neighbor on {nic.netdev}; fill in switch and switch_port")
        try:
            name, port = rules.machine_name(neighbor.switch), rules.switch_port(neighbor.port)
        except rules.Invalid as exc:
            return Cable(None, None, f"LLDP names {neighbor.switch!r} port {neighbor.port!r}, not usable here: {exc}")
        where = f"{facts.name}/{nic.name}"
        first = self.claimed.setdefault((name, port), where)
        if first != where:
            self.conflicts.append((facts.name, f"{nic.name} and {first} both report {name} {port} (LLDP): one cable is miswired"))
            return Cable(None, None, f"LLDP: {name} {port}, also reported by {first}; not written")
        if name not in self.switches:
            os_name = switch_os(neighbor.description)
            if os_name is None or neighbor.management_ipv4 is None:
                missing = "OS (in its system description)" if os_name is None else "management address"
                return Cable(None, None, f"LLDP: {name} {port}; {name} advertises no {missing}: add it under switches, then set switch and switch_port")
            self.switches[name] = Switch(name, os_name, neighbor.management_ipv4, self.ssh)  # type: ignore[arg-type]
        return Cable(name, port, "LLDP")

