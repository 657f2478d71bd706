"""PCIe topology and link state of NICs and GPUs (catalog PCI-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.node_facts import pcie_link
from pytest_gpufabric.checks.pcie import acs_on_route, bandwidth_on_path, p2p_bridges, share_pcie_switch
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from pytest_gpufabric.parsers.lspci import parse_lspci
from pytest_gpufabric.parsers.pci_path import parse_pci_device_path
from pytest_gpufabric.targets import GpuTarget, NicGpuPairTarget, NicTarget


@pytest.mark.check("PCI-001")
def test_acs_disabled_on_nic_gpu_path(nic_gpu_pair: NicGpuPairTarget, gpufabric: CheckContext) -> None:
    node = nic_gpu_pair.node.name
    paths = [
        gpufabric.parse(parse_pci_device_path, gpufabric.run(node, sh("readlink", "-f", f"/sys/bus/pci/devices/{bdf}"), cached=True))
        for bdf in (nic_gpu_pair.nic.pci, nic_gpu_pair.gpu.pci)
    ]
    route = p2p_bridges(*paths)
    lspci = gpufabric.parse(parse_lspci, gpufabric.run(node, "lspci -vvv", cached=True))
    enabled = [f for f in acs_on_route(route, lspci) if f.source_validation]
    gpufabric.expect(
        "acs_enabled_bridges",
        len(enabled),
        detail="ACS SrcValid+ on " + ", ".join(f.bdf for f in enabled) if enabled else f"route: {' '.join(route)}",
    )


def _link(gpufabric: CheckContext, node: str, bdf: str, where: str) -> None:
    """The device's own link (lspci, else sysfs) and the kernel's bandwidth message for the whole path."""
    link = pcie_link(gpufabric, node, bdf)
    values = [("below_capability", link.below_capability, where, link.detail),
              ("speed_gts", link.speed_gts, where, link.detail),
              ("width", link.width, where, link.detail)]
    with gpufabric.part():  # the device's own link is judged even where the kernel log cannot be read
        path = bandwidth_on_path(gpufabric.parse(parse_dmesg, gpufabric.run(node, "dmesg", cached=True)), bdf, link)
        values.append(("available_bandwidth_fraction", path.fraction, where, path.detail))
    gpufabric.expect_each(values)


@pytest.mark.check("PCI-002")
def test_nic_pcie_link(nic: NicTarget, gpufabric: CheckContext) -> None:
    _link(gpufabric, nic.node.name, nic.nic.pci, f"{nic.id} ({nic.nic.pci})")


@pytest.mark.check("PCI-003")
def test_gpu_pcie_link(gpu: GpuTarget, gpufabric: CheckContext) -> None:
    _link(gpufabric, gpu.node.name, gpu.gpu.pci, f"{gpu.id} ({gpu.gpu.pci})")


@pytest.mark.check("PCI-004")
def test_nic_shares_switch_with_gpu(nic_gpu_pair: NicGpuPairTarget, gpufabric: CheckContext) -> None:
    node = nic_gpu_pair.node.name
    nic, gpu = (
        gpufabric.parse(parse_pci_device_path, gpufabric.run(node, sh("readlink", "-f", f"/sys/bus/pci/devices/{bdf}"), cached=True))
        for bdf in (nic_gpu_pair.nic.pci, nic_gpu_pair.gpu.pci)
    )
    gpufabric.expect("share_pcie_switch", share_pcie_switch(nic, gpu), detail=f"NIC {' > '.join(nic.chain)}; GPU {' > '.join(gpu.chain)}")
