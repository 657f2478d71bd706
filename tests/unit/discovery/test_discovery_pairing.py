"""NIC <-> GPU pairing from sysfs PCIe paths: the lowest common bridge decides, never bus order."""

from __future__ import annotations

from pytest_gpufabric.discovery.pairing import pair_nic, shared_bridges
from pytest_gpufabric.parsers.pci_path import parse_pci_device_path


def path(text: str):
    return parse_pci_device_path(text + "\n").facts


# Two PCIe switches below two root ports; GPU bus numbers interleave with the NICs' on purpose, so a pairing
# by bus order would pick the wrong GPU.
GPU0 = path("/sys/devices/pci0000:10/0000:10:01.1/0000:11:00.0/0000:12:00.0/0000:15:00.0")
NIC0 = path("/sys/devices/pci0000:10/0000:10:01.1/0000:11:00.0/0000:12:01.0/0000:13:00.0")
GPU1 = path("/sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:00.0/0000:14:00.0")
NIC1 = path("/sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:01.0/0000:16:00.0")


def test_the_gpu_below_the_same_switch_is_chosen_not_the_nearest_bus_number() -> None:
    assert pair_nic(NIC0, {0: GPU0, 1: GPU1}).gpu == 0
    assert pair_nic(NIC1, {0: GPU0, 1: GPU1}).gpu == 1  # bus 0x16 is next to GPU 0x15, yet GPU1 shares its switch
    assert "0000:11:00.0" in pair_nic(NIC0, {0: GPU0, 1: GPU1}).reason


def test_two_gpus_equally_near_leave_the_nic_unpaired_with_the_reason() -> None:
    twin = path("/sys/devices/pci0000:10/0000:10:01.1/0000:11:00.0/0000:12:02.0/0000:17:00.0")
    pairing = pair_nic(NIC0, {0: GPU0, 2: twin})
    assert pairing.gpu is None
    assert "GPU 0, GPU 2 are equally near" in pairing.reason


def test_a_nic_sharing_no_bridge_with_any_gpu_is_unpaired() -> None:
    lone = path("/sys/devices/pci0000:c0/0000:c0:01.1/0000:c1:00.0")
    pairing = pair_nic(lone, {0: GPU0, 1: GPU1})
    assert pairing.gpu is None and "root complex" in pairing.reason
    assert pair_nic(None, {0: GPU0}).gpu is None
    assert pair_nic(NIC0, {}).reason == "unpaired: the node shows no GPU"


def test_devices_below_different_root_buses_share_no_bridge() -> None:
    assert shared_bridges(NIC0, GPU1) == ()
    assert shared_bridges(NIC0, GPU0) == ("0000:10:01.1", "0000:11:00.0")
