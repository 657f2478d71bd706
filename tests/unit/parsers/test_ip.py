from __future__ import annotations

from ipaddress import IPv4Address, IPv4Interface

import pytest

from pytest_gpufabric.parsers.ip import parse_ip_addr, parse_ip_link, parse_ip_route, parse_ip_rule


@pytest.mark.parametrize("name", ["devhost_oneline.txt", "devhost_multiline.txt"], ids=["-o", "plain"])
def test_ip_link(output, name: str) -> None:
    links = parse_ip_link(output("ip-link", name)).facts
    assert [link.name for link in links.links] == ["lo", "ifb0", "ifb1", "eth0"]
    eth0 = links.get("eth0")
    assert (eth0.index, eth0.mtu, eth0.state, eth0.mac) == (4, 1400, "UP", "02:fc:00:00:00:01")
    assert eth0.admin_up and eth0.carrier
    ifb0 = links.get("ifb0")
    assert ifb0.flags == frozenset({"BROADCAST", "NOARP"}) and ifb0.state == "DOWN" and not ifb0.admin_up
    assert links.get("lo").mtu == 65536


def test_ip_link_vlan_parent() -> None:
    (link,) = parse_ip_link("7: eth1.100@eth1: <BROADCAST,MULTICAST> mtu 9000 qdisc noop state DOWN mode DEFAULT\n").facts.links
    assert (link.name, link.parent, link.mtu) == ("eth1.100", "eth1", 9000)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ('Device "enp1s0" does not exist.\n', "expected '<index>: <name>"),
     ("2: eth0: <UP,LOWER_UP> qdisc noop state UP\n", "no mtu"),
     ("2: eth0: <UP,LOWER_UP> mtu big state UP\n", "expected a whole number")],
    ids=["empty", "error-message", "no-mtu", "bad-mtu"],
)
def test_ip_link_malformed(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ip_link, text, "ip-link", fragment)


@pytest.mark.parametrize(
    ("name", "interface", "address"),
    [
        ("devhost_oneline.txt", "eth0", "192.0.2.2/24"),
        ("s0_grep_inet_enp29s0np0.txt", "enp29s0np0", "1.1.101.15/31"),
        ("s0_grep_inet_enp159s0np0.txt", "enp159s0np0", "1.1.102.45/31"),
    ],
    ids=["ip-o-4-addr", "s0-grep-inet-1", "s0-grep-inet-2"],
)
def test_ip_addr(output, name: str, interface: str, address: str) -> None:
    addresses = parse_ip_addr(output("ip-addr", name)).facts
    assert addresses.of(interface) == (IPv4Interface(address),)
    assert addresses.of("missing0") == ()


def test_ip_addr_keeps_every_interface(output) -> None:
    addresses = parse_ip_addr(output("ip-addr", "devhost_oneline.txt")).facts
    assert [entry.name for entry in addresses.interfaces] == ["lo", "eth0"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("1: lo    inet6 ::1/128 scope host\n", "no 'inet"),
     ("2: eth0    inet 300.1.1.1/24 scope global eth0\n", "not an address"),
     ("2: eth0    inet 10.0.0.1 scope global eth0\n", "no prefix length")],
    ids=["empty", "ipv6-only", "bad-address", "no-prefix"],
)
def test_ip_addr_malformed(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ip_addr, text, "ip-addr", fragment)


@pytest.mark.parametrize(
    ("name", "count", "source", "table"),
    [
        ("s0_24bit_host1.txt", 11, "192.168.1.1", "101"),
        ("s0_31bit_host1.txt", 19, "1.1.101.14/31", "101"),
        ("s1_vmware_host1.txt", 11, "192.168.1.2", "101"),
    ],
    ids=["s0-24bit", "s0-31bit", "s1-vmware"],
)
def test_ip_rule(output, name: str, count: int, source: str, table: str) -> None:
    rules = parse_ip_rule(output("ip-rule", name)).facts
    assert len(rules) == count
    assert any(rule.source == source and rule.table == table for rule in rules)
    assert rules[0].source == "all" and rules[0].table == "local" and rules[0].priority == 0


def test_ip_rule_destination_selector(output) -> None:
    rules = parse_ip_rule(output("ip-rule", "s0_31bit_host1.txt")).facts
    to_rules = [rule for rule in rules if rule.destination]
    assert len(to_rules) == 8 and to_rules[0].destination == "1.1.101.14/16" and to_rules[0].source == "all"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("32762: from 192.168.1.1\n", "expected '<priority>: from"),
     ("x: from all lookup main\n", "expected a whole number"), ("5: from 10.0.0.300 lookup 5\n", "not an IPv4")],
    ids=["empty", "no-table", "bad-priority", "bad-source"],
)
def test_ip_rule_malformed(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ip_rule, text, "ip-rule", fragment)


@pytest.mark.parametrize(
    ("name", "gateway", "device"),
    [
        ("s0_table101.txt", "192.168.1.254", "eth1"),
        ("s0_31bit_table101.txt", "1.1.101.14", "eth1"),
        ("s1_vmware_table101.txt", "192.168.1.254", "ens65np@"),  # the document's OCR turned a 0 into @
    ],
    ids=["s0-24bit", "s0-31bit", "s1-vmware"],
)
def test_ip_route_default_per_table(output, name: str, gateway: str, device: str) -> None:
    (route,) = parse_ip_route(output("ip-route", name)).facts
    assert route.is_default and route.gateway == gateway and route.device == device
    assert route.gateway_address == IPv4Address(gateway)


def test_ip_route_main_table(output) -> None:
    default, subnet = parse_ip_route(output("ip-route", "devhost_main.txt")).facts
    assert default.is_default and default.device == "eth0"
    assert subnet.destination == "192.0.2.0/24" and subnet.gateway is None
    assert subnet.source == "192.0.2.2" and subnet.gateway_address is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("Error: ipv4: FIB table does not exist.\n", "expected 'default' or a prefix"),
     ("default via 10.0.0.256 dev eth1\n", "gateway")],
    ids=["empty", "missing-table", "bad-gateway"],
)
def test_ip_route_malformed(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ip_route, text, "ip-route", fragment)
