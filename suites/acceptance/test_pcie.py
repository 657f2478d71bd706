"""PCIe topology and link state of NICs and GPUs (catalog PCI-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.pcie import acs_on_route, p2p_bridges
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.lspci import parse_lspci
from pytest_gpufabric.parsers.pci_path import parse_pci_device_path
from pytest_gpufabric.targets import NicGpuPairTarget


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
