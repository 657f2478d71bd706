"""Pure evaluation of the GPU, host, PCIe and link checks on real outputs."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Interface

from pytest_gpufabric.checks.gpu import bus_mismatches, non_xgmi_pairs, normalize_bdf, weakest_gpu_links
from pytest_gpufabric.checks.host import routing_problems, shared_subnets
from pytest_gpufabric.checks.link import gid_ipv4
from pytest_gpufabric.checks.pcie import share_pcie_switch
from pytest_gpufabric.parsers.ip import parse_ip_route, parse_ip_rule
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_topo
from pytest_gpufabric.parsers.pci_path import parse_pci_device_path
from pytest_gpufabric.parsers.rocm_smi import parse_rocm_smi_showbus, parse_rocm_smi_showtopotype
from tests.outputs import read_output


def test_bus_mismatches_against_s0_appendix_b() -> None:
    measured = parse_rocm_smi_showbus(read_output("rocm-smi-showbus", "s0_appendix_b.txt")).facts
    inventory = dict(enumerate(["0000:1c:00.0", "0000:42:00.0", "0000:55:00.0", "0000:68:00.0", "0000:9e:00.0", "0000:c2:00.0", "0000:d4:00.0", "0000:e6:00.0"]))
    assert bus_mismatches(inventory, measured) == []
    assert bus_mismatches({**inventory, 8: "0000:f0:00.0"}, measured) == ["GPU8: absent (inventory 0000:f0:00.0)"]
    assert normalize_bdf("00000000:1C:00.0") == "0000:1c:00.0"


def test_xgmi_everywhere_in_s0() -> None:
    assert non_xgmi_pairs(parse_rocm_smi_showtopotype(read_output("rocm-smi-showtopotype", "s0_single_node.txt")).facts) == []


def test_nvlink_count_in_h200_topology() -> None:
    weakest, problems = weakest_gpu_links(parse_nvidia_smi_topo(read_output("nvidia-smi-topo", "h200x2_pipe.txt")).facts)
    assert weakest == 18 and problems == []


def test_shared_subnets() -> None:
    own = {"a": (IPv4Interface("192.168.1.1/24"),), "b": (IPv4Interface("192.168.2.1/24"),)}
    assert shared_subnets(own) == []
    assert shared_subnets({**own, "c": (IPv4Interface("192.168.2.9/24"),)}) == ["192.168.2.0/24: b, c"]


def test_routing_problems_on_s0_samples() -> None:
    rules = parse_ip_rule(read_output("ip-rule", "s0_24bit_host1.txt")).facts
    routes = parse_ip_route(read_output("ip-route", "s0_table101.txt")).facts
    source = next(r for r in rules if r.table == "101").source_network
    assert source is not None
    address = next(source.hosts()) if source.prefixlen < 32 else source.network_address
    gateway = next(r.gateway_address for r in routes if r.is_default)
    assert routing_problems(rules, routes, address, 101, gateway) == []
    assert routing_problems(rules, (), address, 101, gateway) == ["table 101 has no default route"]
    assert routing_problems((), routes, address, 101, IPv4Address("10.0.0.1"))[0] == f"no rule 'from {address} lookup 101'"


def test_share_pcie_switch() -> None:
    gpu = parse_pci_device_path("/sys/devices/pci0000:19/0000:19:01.1/0000:1a:00.0/0000:1b:00.0/0000:1c:00.0\n").facts
    nic = parse_pci_device_path("/sys/devices/pci0000:19/0000:19:01.1/0000:1a:00.0/0000:1b:00.1/0000:1d:00.0\n").facts
    alone = parse_pci_device_path("/sys/devices/pci0000:19/0000:19:01.1/0000:1d:00.0\n").facts
    assert share_pcie_switch(nic, gpu) and not share_pcie_switch(alone, gpu)


def test_gid_ipv4() -> None:
    assert gid_ipv4("0000:0000:0000:0000:0000:ffff:c0a8:0101") == "192.168.1.1"
    assert gid_ipv4("fe80:0000:0000:0000:7ec2:55ff:fe01:001d") is None
    assert gid_ipv4("") is None
