"""Link state of the backend NICs (catalog LNK-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.link import gid_ipv4
from pytest_gpufabric.checks.rdma_facts import gid_entry, rdma_links
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.ethtool import parse_ethtool
from pytest_gpufabric.parsers.ibverbs import parse_ibv_devices, parse_ibv_devinfo
from pytest_gpufabric.parsers.ip import parse_ip_addr, parse_ip_link
from pytest_gpufabric.targets import NicTarget


@pytest.mark.check("LNK-005")
def test_interface_mtu(nic: NicTarget, gpufabric: CheckContext) -> None:
    links = gpufabric.parse(parse_ip_link, gpufabric.run(nic.node.name, sh("ip", "-o", "link", "show", "dev", nic.nic.netdev)))
    link = gpufabric.require(links.get(nic.nic.netdev), f"interface {nic.nic.netdev}")
    gpufabric.expect("mtu", link.mtu, where=f"{nic.id} ({nic.nic.netdev})")


@pytest.mark.check("LNK-001")
def test_rdma_link_active(nic: NicTarget, gpufabric: CheckContext) -> None:
    links = rdma_links(gpufabric, nic.node.name)
    link = links.get(nic.nic.name)
    if link is None:  # e.g. devices named by PCIe slot (S0 5.1 FAQ 1, DRV-011)
        found = ", ".join(sorted({f"{other.device}/{other.port}" for other in links.links}))
        gpufabric.expect("state", "absent", detail=f"no {nic.nic.name}/1 in rdma link show ({found})")
        return
    gpufabric.expect_each([
        ("state", link.state, None, ""),
        ("physical_state", link.physical_state, None, ""),
        ("netdev_differs_from_inventory", link.netdev != nic.nic.netdev, None, f"netdev {link.netdev}, inventory {nic.nic.netdev}"),
    ])


@pytest.mark.check("LNK-002")
def test_ethernet_link_speed(nic: NicTarget, gpufabric: CheckContext) -> None:
    settings = gpufabric.parse(parse_ethtool, gpufabric.run(nic.node.name, sh("ethtool", nic.nic.netdev)))
    with gpufabric.part():  # a link without carrier shows no speed ("Unknown!"): its state alone fails it
        gpufabric.judge("link_detected", settings.link_detected)
    with gpufabric.part():
        speed = gpufabric.require(settings.speed_mbps, f"Speed of {nic.nic.netdev}")
        gpufabric.judge("speed_differs_from_inventory", speed != nic.nic.speed_gbps * 1000,
                        detail=f"Speed {speed}Mb/s, inventory {nic.nic.speed_gbps} Gb/s")
    gpufabric.settle()


@pytest.mark.check("LNK-003")
def test_rdma_port_active_mtu(nic: NicTarget, gpufabric: CheckContext) -> None:
    devinfo = gpufabric.parse(parse_ibv_devinfo, gpufabric.run(nic.node.name, sh("ibv_devinfo", "-d", nic.nic.name)))
    device = gpufabric.require(devinfo.get(nic.nic.name), f"{nic.nic.name} in ibv_devinfo")
    port = gpufabric.require(device.port(1), f"port 1 of {nic.nic.name}")
    gpufabric.expect_each([("port_state", port.state, None, ""), ("active_mtu", port.active_mtu, None, f"max_mtu {port.max_mtu}")])


@pytest.mark.check("LNK-004")
def test_node_guid(nic: NicTarget, gpufabric: CheckContext) -> None:
    devices = gpufabric.parse(parse_ibv_devices, gpufabric.run(nic.node.name, "ibv_devices", cached=True))
    device = gpufabric.require(next((d for d in devices if d.name == nic.nic.name), None), f"{nic.nic.name} in ibv_devices")
    gpufabric.expect("guid_is_zero", device.guid_is_zero, detail=f"node GUID {device.node_guid}")


@pytest.mark.check("LNK-006")
def test_ipv4_address(nic: NicTarget, gpufabric: CheckContext) -> None:
    addresses = gpufabric.parse(parse_ip_addr, gpufabric.run(nic.node.name, "ip -o -4 addr show", cached=True))
    found = addresses.of(nic.nic.netdev)
    gpufabric.expect("inventory_address_missing", nic.nic.ipv4 not in found,
                     detail=f"{nic.nic.netdev} has {', '.join(map(str, found)) or 'no IPv4 address'}, inventory {nic.nic.ipv4}")


@pytest.mark.check("LNK-007")
def test_gid_index_3_roce_v2(nic: NicTarget, gpufabric: CheckContext) -> None:
    entry = gid_entry(gpufabric, nic.node.name, nic.nic.name, 3)
    carried = gid_ipv4(entry.gid or "")
    gpufabric.expect_each([
        ("gid_type", entry.kind, None, f"type of GID 3 ({entry.source})"),
        ("gid_differs_from_nic_ipv4", carried != str(nic.nic.ipv4.ip), None, f"GID {entry.gid or 'empty'}, NIC {nic.nic.ipv4.ip}"),
    ])
