"""The switch-side reads of CAB-001 on real outputs (fixtures/outputs/{eos,sonic,junos}-*/SOURCES.md), fact by fact:
EOS and Junos `show lldp neighbors`, SONiC `show lldp table`, and the MAC address tables of the three."""

from __future__ import annotations

import pytest

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers import eos_neighbors, junos_neighbors, sonic_neighbors
from pytest_gpufabric.switches.neighbors import (
    LldpNeighborEntry,
    MacEntry,
    canonical_port,
    is_host_facing,
    normalize_mac,
)
from tests.outputs import read_output


def _lldp(entries: tuple[LldpNeighborEntry, ...]) -> list[tuple[str, str | None, str | None]]:
    return [(e.port, e.system_name, e.port_id) for e in entries]


def test_eos_lldp_without_a_dash_line() -> None:
    parsed = eos_neighbors.parse_lldp_neighbors(read_output("eos-lldp-neighbors", "ntc-templates-no-dashes.txt"))
    assert _lldp(parsed.facts) == [("Ethernet1", "localhost", "Ethernet1"), ("Ethernet2", "localhost", "Ethernet2"),
                                   ("Ethernet3/1", "tg104.sjc.aristanetworks.com", "Ethernet3/2"),
                                   ("Management1/1", "dc1-rack11-tor1.sjc", "1/1")]
    assert parsed.unread == ()


def test_eos_lldp_with_a_dash_line() -> None:
    parsed = eos_neighbors.parse_lldp_neighbors(read_output("eos-lldp-neighbors", "ntc-templates-dashes.txt"))
    assert _lldp(parsed.facts) == [(f"Ethernet{n}", "arista2", f"Ethernet{n}") for n in range(2, 8)]


@pytest.mark.parametrize(("name", "count", "hosts"), [
    ("evpn-multi-dc-dc1-leaf2b.txt", 22, [("Ethernet5", "dc1-client3", "aac1.ab12.4859"), ("Ethernet6", "dc1-client4", "aac1.abe9.df56")]),
    ("avd-ceos-lab-dc1-pe11.txt", 13, [("Ethernet3", "client1", "aac1.ab5d.2bb4"), ("Ethernet4", "client2", "aac1.ab75.8ac6")]),
])
def test_eos_lldp_names_linux_hosts_by_their_nic_mac(name: str, count: int, hosts: list[tuple[str, str, str]]) -> None:
    parsed = eos_neighbors.parse_lldp_neighbors(read_output("eos-lldp-neighbors", name))
    assert len(parsed.facts) == count and parsed.unread == ()
    rows = _lldp(parsed.facts)
    assert all(host in rows for host in hosts)
    assert rows[0] == ("Ethernet1", "dc1-spine1" if "leaf2b" in name else "p1", "Ethernet4" if "leaf2b" in name else "Ethernet1")
    assert sum(1 for port, _, _ in rows if port == "Management0") == count - 6 + (0 if "leaf2b" in name else 2)


def test_eos_mac_table_reads_the_unicast_rows_whole() -> None:
    parsed = eos_neighbors.parse_mac_address_table(read_output("eos-mac-address-table", "ntc-templates.txt"))
    facts = parsed.facts
    assert len(facts) == 19 and parsed.unread == ()
    assert facts[0] == MacEntry("00:12:36:94:03:ec", "Ethernet7", "3", "static")
    assert facts[1] == MacEntry("00:1c:73:13:a3:de", "Ethernet32", "55", "dynamic")  # its own alignment
    assert facts[2] == MacEntry("00:1c:82:24:36:d7", "Port-Channel2", "101", "dynamic")
    assert facts[-1] == MacEntry("00:1c:82:21:07:b9", "Port-Channel6", "3992", "dynamic")
    assert not any(entry.mac.startswith("c8:67") for entry in facts)  # the multicast table's members are no host ports


def test_sonic_lldp_table_of_the_command_reference() -> None:
    parsed = sonic_neighbors.parse_lldp_table(read_output("sonic-lldp-table", "command-reference.txt"))
    assert parsed.facts == (
        LldpNeighborEntry("Ethernet112", "T1-1", "hundredGigE1/2", "T0-2:hundredGigE1/29"),
        LldpNeighborEntry("Ethernet116", "T1-2", "hundredGigE1/2", "T0-2:hundredGigE1/30"),
        LldpNeighborEntry("eth0", "swtor-b2lab2-1610", "GigabitEthernet 0/2", None),
    )
    assert parsed.unread == ()


def test_sonic_lldp_table_with_mac_port_ids() -> None:
    parsed = sonic_neighbors.parse_lldp_table(read_output("sonic-lldp-table", "sonic-utilities-two-macs.txt"))
    assert parsed.facts == (LldpNeighborEntry("Ethernet0", "dummy", "00:00:00:00:00:01", "First MAC"),
                            LldpNeighborEntry("Ethernet0", "dummy", "00:00:00:00:00:02", "Second MAC"))


@pytest.mark.parametrize(("name", "expected"), [
    ("sonic-utilities-show-mac.txt", [("11:22:33:44:55:66", "Ethernet0", "2", "dynamic"), ("11:22:33:66:55:44", "Ethernet4", "3", "static"),
                                      ("66:55:44:33:22:11", "Ethernet0", "4", "dynamic"), ("77:66:44:33:22:11", "1000000000fff", "4", "dynamic"),
                                      ("77:66:55:44:22:11", "Ethernet4", "5", "dynamic")]),
    ("sonic-utilities-def-vlan.txt", [("11:22:33:44:55:66", "Ethernet0", "2", "dynamic"), ("11:22:33:66:55:44", "Ethernet4", "3", "static")]),
    ("sonic-utilities-multi-asic.txt", [("11:22:33:44:55:66", "Ethernet0", "2", "dynamic")]),
])
def test_sonic_mac(name: str, expected: list[tuple[str, str, str, str]]) -> None:
    parsed = sonic_neighbors.parse_mac(read_output("sonic-mac", name))
    assert [(e.mac, e.port, e.vlan, e.kind) for e in parsed.facts] == expected
    assert parsed.unread == ()


def test_junos_lldp_neighbors() -> None:
    parsed = junos_neighbors.parse_lldp_neighbors(read_output("junos-lldp-neighbors", "ntc-templates.txt"))
    assert parsed.facts == (LldpNeighborEntry("ge-0/0/1", "vmx2", "ge-0/0/1", None, "2c:6b:f5:a1:c2:c0"),
                            LldpNeighborEntry("ge-0/0/0", "vmx3", "ge-0/0/0", None, "2c:6b:f5:a2:08:c0"))
    members = junos_neighbors.parse_lldp_neighbors(read_output("junos-lldp-neighbors", "ntc-templates-ae7.txt")).facts
    assert [(e.port, e.port_id, e.system_name) for e in members] == [
        ("xe-0/1/1", "Ethernet3/29/1", "core01.sjc01"), ("xe-0/3/3", "Ethernet3/29/2", "core01.sjc01"),
        ("xe-2/0/5", "Ethernet3/29/3", "core01.sjc01"), ("xe-2/1/5", "Ethernet3/29/4", "core01.sjc01")]


@pytest.mark.parametrize(("name", "expected"), [
    ("ntc-templates-rtr-id.txt", [("bc:ac:0a:ca:ca:30", "ae3", "Vlan2"), ("2c:5a:0f:bc:a3:cd", "xe-0/0/51:0", "Vlan100"),
                                  ("ca:fe:ca:fe:00:07", "ae100", "Vlan1011")]),
    ("ntc-templates-ae.txt", [("2c:5a:0f:bc:a3:cd", "ae112", "Vlan100"), ("ca:fe:ca:fe:00:07", "ae112", "Vlan100")]),
    ("ntc-templates-14.1X53-D47.6.txt", [("3c:8c:93:50:dc:c0", "ae2", "BD-903691"), ("52:54:00:f5:30:2b", "ae2", "BD-903691"),
                                         ("00:0c:29:84:d2:f8", "xe-0/0/3", "Vlan3117")]),
])
def test_junos_ethernet_switching_table(name: str, expected: list[tuple[str, str, str]]) -> None:
    parsed = junos_neighbors.parse_ethernet_switching_table(read_output("junos-ethernet-switching-table", name))
    assert [(e.mac, e.port, e.vlan) for e in parsed.facts] == expected
    assert parsed.unread == ()


def test_a_row_that_does_not_fit_costs_only_its_own_facts() -> None:
    text = read_output("eos-lldp-neighbors", "ntc-templates-dashes.txt").replace(
        "Et4           arista2                  Ethernet4           120",
        "Et4           arista2                  Ethernet4arista2Ethernet5   120")
    parsed = eos_neighbors.parse_lldp_neighbors(text)
    assert [e.port for e in parsed.facts] == ["Ethernet2", "Ethernet3", "Ethernet5", "Ethernet6", "Ethernet7"]
    assert [(u.scope, "fused" in u.reason or "column" in u.reason) for u in parsed.unread] == [("Et4", True)]
    shifted = read_output("sonic-mac", "sonic-utilities-def-vlan.txt").replace(
        "    2       3  11:22:33:66:55:44  Ethernet4  Static", "    2          11:22:33:66:55:44  3 Ethernet4  Static")
    assert [e.port for e in sonic_neighbors.parse_mac(shifted).facts] == ["Ethernet0"]  # refused, never shifted
    with pytest.raises(ParseError):
        junos_neighbors.parse_ethernet_switching_table("error: syntax error, expecting <command>: ethernet-switching\n")


def test_names_and_addresses_as_the_inventory_writes_them() -> None:
    assert normalize_mac("aac1.ab12.4859") == normalize_mac("AA:C1:AB:12:48:59") == "aa:c1:ab:12:48:59"
    assert normalize_mac("Ethernet4") is None and normalize_mac("jenn.3057.8423") is None
    assert canonical_port("arista", "Et3/1") == "Ethernet3/1" and canonical_port("arista", "Po2") == "Port-Channel2"
    assert canonical_port("juniper", "xe-0/0/51:0.0") == "xe-0/0/51:0" and canonical_port("sonic", "Ethernet8") == "Ethernet8"
    assert is_host_facing("arista", "Ethernet17/1") and not is_host_facing("arista", "Port-Channel2")
    assert is_host_facing("juniper", "et-0/0/3:0") and not is_host_facing("juniper", "ae112")
    assert not is_host_facing("sonic", "1000000000fff") and not is_host_facing("sonic", "PortChannel01")
