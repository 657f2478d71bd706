"""Cabling as planned (catalog CAB-001): each NIC's cable ends on the switch port the plan assigns, on its rail's
leaf; what the host's and the switches' LLDP say, else the switches' MAC address tables."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pytest

from pytest_gpufabric.checks.cabling import (
    Sighting,
    describe_both_ends,
    distinct,
    mac_index,
    neighbor_index,
    rail_detail,
    seen_by_host,
    seen_in_lldp_tables,
    seen_in_mac_tables,
)
from pytest_gpufabric.checks.cabling_plan import PLAN_KEY, CablingPlan
from pytest_gpufabric.checks.node_facts import tool_missing
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import GpufabricError, MeasurementMissing
from pytest_gpufabric.inventory import Switch
from pytest_gpufabric.parsers.ip import parse_ip_link
from pytest_gpufabric.parsers.lldp import parse_lldpctl_keyvalue
from pytest_gpufabric.parsers.reading import Parsed
from pytest_gpufabric.plugin import SESSION_KEY
from pytest_gpufabric.switches.neighbors import canonical_port, neighbor_reads
from pytest_gpufabric.targets import NicTarget

HOST_LLDP = "lldpctl -f keyvalue"
T = TypeVar("T")


def _indexed(index: Callable[[Any], T], parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """A parser whose facts are ``index`` of ``parse``'s (cached once per output and process by the context)."""
    def parse_and_index(text: str) -> Any:
        parsed = parse(text)
        return parsed.map(index) if isinstance(parsed, Parsed) else index(parsed)
    parse_and_index.__qualname__ = f"{index.__name__}:{parse.__module__}.{parse.__qualname__}"
    return parse_and_index


def _tables(gpufabric: CheckContext, switches: tuple[Switch, ...], kind: str, index: Callable[[Any], T],
            problems: list[str]) -> tuple[dict[str, T], dict[str, str]]:
    """Every switch's table of ``kind`` (lldp or mac_table), indexed; a switch that cannot be read is a problem."""
    found: dict[str, T] = {}
    commands: dict[str, str] = {}
    for switch in switches:
        command, parse = getattr(neighbor_reads()[switch.os], kind)
        try:
            result = gpufabric.run(switch.name, command, cached=True)
            found[switch.name] = gpufabric.parse(_indexed(index, parse), result, cached=True)
        except GpufabricError as exc:
            problems.append(f"{switch.name} `{command}`: {exc}")
            continue
        commands[switch.name] = command
    return found, commands


def _host_lldp(gpufabric: CheckContext, nic: NicTarget, switch_os: Mapping[str, str], problems: list[str]) -> list[Sighting]:
    result = gpufabric.run(nic.node.name, HOST_LLDP, cached=True)
    if tool_missing(result) or result.exit_code != 0:
        problems.append(f"{nic.node.name} `{HOST_LLDP}`: exit {result.exit_code}")
        return []
    if not result.stdout.strip():  # lldpctl prints nothing when it hears no neighbor
        problems.append(f"{nic.node.name} `{HOST_LLDP}`: no LLDP neighbor")
        return []
    sighting = seen_by_host(gpufabric.parse(parse_lldpctl_keyvalue, result, cached=True), nic.nic.netdev,
                            nic.node.name, switch_os)
    return [sighting] if sighting is not None else []


def _where(gpufabric: CheckContext, nic: NicTarget, switches: tuple[Switch, ...]) -> list[Sighting]:
    """The switch ports the first source that sees the NIC names (host LLDP, switch LLDP, MAC tables)."""
    problems: list[str] = []
    switch_os = {switch.name: switch.os for switch in switches}
    links = gpufabric.parse(parse_ip_link, gpufabric.run(nic.node.name, sh("ip", "-o", "link", "show", "dev", nic.nic.netdev)))
    link = links.get(nic.nic.netdev)
    mac = link.mac if link is not None else None
    found = _host_lldp(gpufabric, nic, switch_os, problems)
    if not found:
        lldp, commands = _tables(gpufabric, switches, "lldp", neighbor_index, problems)
        found = seen_in_lldp_tables(lldp, commands, nic.node.name, nic.nic.netdev, mac)
    if not found and mac is not None:
        tables, commands = _tables(gpufabric, switches, "mac_table", mac_index, problems)
        found = seen_in_mac_tables(tables, commands, switch_os, mac)
    if not found:
        tried = "; ".join(problems) or "no switch in the inventory"
        raise MeasurementMissing(f"{nic.id}: no source sees where {nic.nic.netdev} (MAC {mac or 'unknown'}) is cabled "
                                 f"(host LLDP, the switches' LLDP neighbors and MAC tables: {tried})")
    return distinct(found)


@pytest.mark.check("CAB-001")
def test_nic_cabled_as_planned(nic: NicTarget, gpufabric: CheckContext, request: pytest.FixtureRequest) -> None:
    plan: CablingPlan = request.config.stash[PLAN_KEY]
    planned = plan.of(nic.node.name, nic.nic.name)
    if planned is None:
        pytest.skip(f"{nic.id}: no planned switch port (set switch and switch_port in site.yaml, or give --cabling-plan)")
    switches = request.config.stash[SESSION_KEY].inventory.switches
    seen = _where(gpufabric, nic, switches)
    if len(seen) > 1:
        raise MeasurementMissing(f"{nic.id}: seen on several switch ports: " + "; ".join(f"{s.switch} {s.port} ({s.source})" for s in seen))
    sighting = seen[0]
    switch_os = next((s.os for s in switches if s.name == planned.switch), "")
    on_port = planned.port is None or canonical_port(switch_os, planned.port) == sighting.port
    leaves = plan.rail_leaves.get(nic.nic.rail, frozenset())
    gpufabric.expect_each([
        ("cabled_as_planned", sighting.switch == planned.switch and on_port, None,
         describe_both_ends(nic.id, sighting, planned.switch, planned.port, planned.source)),
        ("on_rail_leaf", sighting.switch in leaves, None, rail_detail(nic.nic.rail, leaves, sighting.switch)),
    ])
