"""lldpctl -f keyvalue, captured from a real lldpd (fixtures/outputs/lldpctl-keyvalue/SOURCES)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.lldp import parse_lldpctl_keyvalue


def test_two_ports_of_a_sonic_leaf(output) -> None:
    neighbors = parse_lldpctl_keyvalue(output("lldpctl-keyvalue", "devhost_sonic_leaf_two_ports.txt")).facts
    assert sorted(neighbors) == ["enp29s0np0", "enp67s0np0"]
    first = neighbors["enp29s0np0"]
    assert (first.switch, first.port, first.management_ipv4) == ("leaf01", "Ethernet8", "10.99.0.21")
    assert first.description.startswith("SONiC Software Version: SONiC.202311.1")
    assert neighbors["enp67s0np0"].port == "Ethernet16"  # port.local, not the description (etp3)


def test_no_neighbor_prints_nothing_which_the_parser_rejects_like_any_empty_output(output, parse_error) -> None:
    parse_error(parse_lldpctl_keyvalue, output("lldpctl-keyvalue", "devhost_no_neighbor.txt"), "empty output")


def test_an_interface_name_with_dots_and_the_port_by_precedence() -> None:
    text = "lldp.eth0.100.via=LLDP\nlldp.eth0.100.chassis.name=sw1\nlldp.eth0.100.port.descr=uplink\nlldp.eth0.100.port.ifname=Ethernet1/1\n"
    neighbor = parse_lldpctl_keyvalue(text).facts["eth0.100"]
    assert (neighbor.switch, neighbor.port, neighbor.management_ipv4) == ("sw1", "Ethernet1/1", None)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Chassis: leaf01\n", "expected 'lldp.<interface>.<field>=<value>'"), ("lldp.eth0=x\n", "'lldp.eth0=x'")],
)
def test_malformed(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_lldpctl_keyvalue, text, "lldpctl-keyvalue", fragment)


def test_the_default_text_format_is_not_keyvalue(output, parse_error) -> None:
    parse_error(parse_lldpctl_keyvalue, output("lldpctl-keyvalue", "lldpd_pr73_default_format_not_keyvalue.txt"),
                "no 'lldp.<interface>.<field>=<value>' line", "Chassis:")


def test_a_multi_line_system_description_of_an_older_lldpd(output) -> None:
    """lldpd before 0.9.2 printed the description's line breaks: the four lines are one Cisco description."""
    parsed = parse_lldpctl_keyvalue(output("lldpctl-keyvalue", "netbox_agent_dedibox2.txt"))
    neighbor = parsed.facts["eno1"]
    assert parsed.unread == ()
    assert neighbor.description.splitlines() == [
        "Cisco IOS Software, C2960X Software (C2960X-UNIVERSALK9-M), Version 15.0(2a)EX5, RELEASE SOFTWARE (fc3)",
        "Technical Support: http://www.cisco.com/techsupport",
        "Copyright (c) 1986-2015 by Cisco Systems, Inc.",
        "Compiled Mon 16-Feb-15 08:16 by prod_rel_team"]
    assert (neighbor.switch, neighbor.port, neighbor.management_ipv4) == ("s35-b12.dc3", "Gi1/0/29", "10.43.31.35")


def test_a_continuation_line_after_a_value_that_is_not_free_text_is_unread(unread_line) -> None:
    parsed = parse_lldpctl_keyvalue("lldp.eth0.chassis.name=sw1\ncontinued\nlldp.eth0.port.ifname=Ethernet1\n")
    assert parsed.facts["eth0"].switch == "sw1" and parsed.facts["eth0"].port == "Ethernet1"
    unread_line(parsed, "continued", "expected 'lldp.<interface>.<field>=<value>'")


def test_repeated_management_addresses_ipv4_first_found(output) -> None:
    neighbors = parse_lldpctl_keyvalue(output("lldpctl-keyvalue", "netbox_agent_cumulus.txt")).facts
    eno1 = neighbors["eno1"]
    assert eno1.management_addresses == ("10.160.20.18", "fe80::e6f0:4ff:feb6:4732")
    assert (eno1.management_ipv4, eno1.port, eno1.port_id_type) == ("10.160.20.18", "swp46", "ifname")
    assert eno1.description == "Cumulus Linux version 3.7.3 running on Dell EMC S4100"


def test_junos_names_the_port_in_its_description_when_the_local_port_id_is_an_ifindex(output) -> None:
    neighbors = parse_lldpctl_keyvalue(output("lldpctl-keyvalue", "netbox_agent_qfx.txt")).facts
    eth0 = neighbors["eth0"]
    assert (eth0.port_id, eth0.port_id_type, eth0.port_description, eth0.port) == ("512", "local", "xe-0/0/1", "xe-0/0/1")
    assert eth0.switch == "sw-filer-f06.dc42" and eth0.description.startswith("Juniper Networks, Inc. qfx5100-48s-6q")


def test_an_older_lldpd_with_the_ttl_under_the_port(output) -> None:
    parsed = parse_lldpctl_keyvalue(output("lldpctl-keyvalue", "netbox_agent_dedibox1.txt"))
    neighbor = parsed.facts["enp1s0f0"]
    assert parsed.unread == ()
    assert (neighbor.switch, neighbor.port, neighbor.management_ipv4, neighbor.description) == (
        "s120-f3-2.itx4", "RJ-9", "10.48.16.15", None)
