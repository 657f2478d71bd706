"""Rules for single values: what each accepts, what it rejects, and that rejections say what is allowed."""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Address, IPv4Interface
from typing import Any

import pytest

from pytest_gpufabric.inventory import rules
from pytest_gpufabric.inventory.frozen_map import FrozenMap

ACCEPTED = [
    pytest.param(rules.host, "10.0.0.11", id="host-ipv4"),
    pytest.param(rules.host, "fd00::11", id="host-ipv6"),
    pytest.param(rules.host, "fe80::1%eth0", id="host-ipv6-scope"),
    pytest.param(rules.host, "node01.cluster.example.", id="host-fqdn-trailing-dot"),
    pytest.param(rules.host, "node-01", id="host-short-name"),
    pytest.param(rules.machine_address, "10.0.0.11", id="machine-address-ipv4"),
    pytest.param(rules.machine_address, "127.0.0.1", id="machine-address-loopback"),
    pytest.param(rules.machine_address, "::1", id="machine-address-ipv6-loopback"),
    pytest.param(rules.machine_address, "node01.cluster.example", id="machine-address-name"),
    pytest.param(rules.machine_name, "gpu-node_01.a", id="name"),
    pytest.param(rules.ssh_user, "_svc-acct1", id="user"),
    pytest.param(rules.file_path, "~/.ssh/id_ed25519", id="path-tilde"),
    pytest.param(rules.file_path, "/etc/ssh/keys/fabric@site,v2", id="path-absolute"),
    pytest.param(rules.netdev, "enp159s0np0", id="netdev"),
    pytest.param(rules.netdev, "bond0.100", id="netdev-vlan"),
    pytest.param(rules.rdma_device, "bnxt_re0", id="rdma-device"),
    pytest.param(rules.switch_port, "Ethernet1/1", id="port-arista"),
    pytest.param(rules.switch_port, "et-0/0/1:2", id="port-juniper-breakout"),
    pytest.param(rules.gpu_model, "H100-SXM5", id="gpu-model"),
    pytest.param(rules.check_id, "COLL-001", id="check-id"),
    pytest.param(rules.scrub_pattern, r"(?i)password=\S+", id="scrub"),
    pytest.param(rules.route_table, 4294967295, id="route-table-max"),
    pytest.param(rules.port_number, 65535, id="port-max"),
]

REJECTED = [
    pytest.param(rules.host, "10.0.0.256", "is not a valid IPv4 address", id="host-bad-octet"),
    pytest.param(rules.host, "fe80::1%eth0;id", "is not a valid IPv6 scope", id="host-scope-injection"),
    pytest.param(
        rules.host, "-oProxyCommand=x", "is not an IPv4 address, an IPv6 address or a host name", id="host-option"
    ),
    pytest.param(rules.host, "a" * 64 + ".example", "host name", id="host-label-too-long"),
    pytest.param(rules.machine_address, "0.0.0.0", "is the unspecified address", id="address-unspecified"),
    pytest.param(rules.machine_address, "::", "is the unspecified address", id="address-ipv6-unspecified"),
    pytest.param(rules.machine_address, "0.10.0.11", "in 0.0.0.0/8, which means this machine", id="address-this-net"),
    pytest.param(rules.machine_address, "255.255.255.255", "is the broadcast address", id="address-broadcast"),
    pytest.param(rules.machine_address, "224.0.0.1", "is a multicast address", id="address-multicast"),
    pytest.param(rules.machine_address, "239.255.255.250", "is a multicast address", id="address-multicast-top"),
    pytest.param(rules.machine_address, "ff02::1", "is a multicast address", id="address-ipv6-multicast"),
    pytest.param(rules.machine_address, "::ffff:224.0.0.1", "is a multicast address", id="address-mapped-multicast"),
    pytest.param(rules.machine_address, "10.0.0.256", "is not a valid IPv4 address", id="address-bad-octet"),
    pytest.param(rules.machine_name, "-node", "is not a valid name", id="name-leading-dash"),
    pytest.param(rules.machine_name, "n" * 64, "at most 63 characters", id="name-too-long"),
    pytest.param(rules.ssh_user, "root user", "is not a valid user name", id="user-space"),
    pytest.param(rules.file_path, "-i/x", "must not start with '-'", id="path-leading-dash"),
    pytest.param(rules.file_path, "~/$(id)", "is not a valid path", id="path-substitution"),
    pytest.param(rules.netdev, "..", "'.' and '..' are not allowed", id="netdev-dotdot"),
    pytest.param(rules.netdev, "eth0:1", "is not a valid interface name", id="netdev-colon"),
    pytest.param(rules.netdev, "-eth0", "must not start with '-'", id="netdev-leading-dash"),
    pytest.param(rules.rdma_device, "bnxt re0", "is not a valid RDMA device name", id="rdma-space"),
    pytest.param(rules.pci_address, "0000:05:20.0", "dddd:bb:dd.f", id="pci-device-over-1f"),
    pytest.param(rules.pci_address, "0000:05:00.8", "dddd:bb:dd.f", id="pci-function-over-7"),
    pytest.param(rules.switch_port, "Ethernet1/1 shutdown", "is not a valid switch port", id="port-space"),
    pytest.param(rules.check_id, "PERF-2", "is not a valid check id", id="check-id-short"),
    pytest.param(rules.threshold_name, "bw-gbps", "is not a valid threshold name", id="threshold-name-dash"),
    pytest.param(
        rules.ipv4_interface, "192.168.1.255/24", "is the broadcast address of 192.168.1.0/24", id="ipv4-broadcast"
    ),
    pytest.param(rules.ipv4_interface, "192.168.1.1/33", "is not an IPv4 address with prefix", id="ipv4-prefix-33"),
    pytest.param(rules.ipv4_interface, "fd00::1/64", "is not an IPv4 address with prefix", id="ipv4-given-ipv6"),
    pytest.param(rules.ipv4_address, "192.168.1", "is not an IPv4 address", id="ipv4-address-short"),
    pytest.param(rules.route_table, 0, "route table 0 is not allowed", id="route-table-zero"),
    pytest.param(rules.route_table, 253, "default, main and local", id="route-table-default"),
    pytest.param(rules.port_number, 0, "is not a TCP port", id="port-zero"),
    pytest.param(rules.positive_number, float("inf"), "positive number", id="timeout-infinite"),
    pytest.param(rules.positive_number, -1.5, "positive number", id="timeout-negative"),
    pytest.param(rules.scrub_pattern, "", "matches the empty string", id="scrub-empty"),
    pytest.param(rules.scrub_pattern, "[a-", "is not a valid regular expression", id="scrub-unterminated-set"),
]


@pytest.mark.parametrize(("rule", "value"), ACCEPTED)
def test_rule_accepts(rule: Callable[[Any], Any], value: Any) -> None:
    assert rule(value) == value


@pytest.mark.parametrize(("rule", "value", "phrase"), REJECTED)
def test_rule_rejects_with_a_message_that_says_what_is_allowed(
    rule: Callable[[Any], Any], value: Any, phrase: str
) -> None:
    with pytest.raises(rules.Invalid, match=r"\(expected|\(it must|are not allowed") as raised:
        rule(value)
    assert phrase in str(raised.value)


@pytest.mark.parametrize(
    ("nic_interface", "gateway_address", "phrase"),
    [
        pytest.param("10.1.0.1/31", "10.1.0.0", None, id="point-to-point-31"),
        pytest.param("192.168.0.1/24", "192.168.0.254", None, id="in-subnet"),
        pytest.param("192.168.0.1/24", "192.168.0.1", "is the NIC's own address", id="own-address"),
        pytest.param("192.168.0.1/24", "192.168.0.0", "is not a host address", id="network-address"),
        pytest.param("192.168.0.1/24", "192.168.1.1", "is outside the NIC's subnet", id="outside"),
    ],
)
def test_gateway(nic_interface: str, gateway_address: str, phrase: str | None) -> None:
    gateway, interface = IPv4Address(gateway_address), IPv4Interface(nic_interface)
    if phrase is None:
        assert rules.gateway(gateway, interface) == gateway
    else:
        with pytest.raises(rules.Invalid, match=phrase):
            rules.gateway(gateway, interface)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("fd00:0::11", "fd00::11", id="ipv6-spellings"),
        pytest.param("Node01.Example.", "node01.example", id="host-name-case-and-dot"),
    ],
)
def test_host_key_makes_spellings_of_one_host_equal(first: str, second: str) -> None:
    assert rules.host_key(first) == rules.host_key(second)


def test_pci_address_is_lower_cased() -> None:
    assert rules.pci_address("0000:9E:00.0") == "0000:9e:00.0"


def test_frozen_map_is_a_hashable_order_insensitive_read_only_mapping() -> None:
    first = FrozenMap({"a": 1, "b": (2, 3)})
    second = FrozenMap({"b": (2, 3), "a": 1})
    assert first == second == {"a": 1, "b": (2, 3)}
    assert hash(first) == hash(second)
    assert list(first) == ["a", "b"]
    with pytest.raises(TypeError):
        first["a"] = 2  # type: ignore[index]
