"""lldpctl -f keyvalue, captured from a real lldpd (fixtures/outputs/lldpctl-keyvalue/SOURCES)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.lldp import parse_lldpctl_keyvalue


def test_two_ports_of_a_sonic_leaf(output) -> None:
    neighbors = parse_lldpctl_keyvalue(output("lldpctl-keyvalue", "devhost_sonic_leaf_two_ports.txt"))
    assert sorted(neighbors) == ["enp29s0np0", "enp67s0np0"]
    first = neighbors["enp29s0np0"]
    assert (first.switch, first.port, first.management_ipv4) == ("leaf01", "Ethernet8", "10.99.0.21")
    assert first.description.startswith("SONiC Software Version: SONiC.202311.1")
    assert neighbors["enp67s0np0"].port == "Ethernet16"  # port.local, not the description (etp3)


def test_no_neighbor_prints_nothing_which_the_parser_rejects_like_any_empty_output(output, parse_error) -> None:
    parse_error(parse_lldpctl_keyvalue, output("lldpctl-keyvalue", "devhost_no_neighbor.txt"), "empty output")


def test_an_interface_name_with_dots_and_the_port_by_precedence() -> None:
    text = "lldp.eth0.100.via=LLDP\nlldp.eth0.100.chassis.name=sw1\nlldp.eth0.100.port.descr=uplink\nlldp.eth0.100.port.ifname=Ethernet1/1\n"
    neighbor = parse_lldpctl_keyvalue(text)["eth0.100"]
    assert (neighbor.switch, neighbor.port, neighbor.management_ipv4) == ("sw1", "Ethernet1/1", None)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Chassis: leaf01\n", "expected 'lldp.<interface>.<field>=<value>'"), ("lldp.eth0=x\n", "found 'lldp.eth0=x'")],
)
def test_malformed(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_lldpctl_keyvalue, text, "lldpctl-keyvalue", fragment)
