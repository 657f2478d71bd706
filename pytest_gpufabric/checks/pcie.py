"""PCIe topology (PCI-*): which bridges a NIC-GPU peer-to-peer transfer crosses, and their ACS state."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.lspci import LspciReport
from pytest_gpufabric.parsers.pci_path import PciDevicePath


def p2p_bridges(a: PciDevicePath, b: PciDevicePath) -> tuple[str, ...]:
    """The bridges on the peer-to-peer route between two devices: from their lowest common bridge down
    to each device. Devices below different root ports route through the root complex: then every
    bridge of both paths is on the route."""
    up_a, up_b = a.chain[:-1], b.chain[:-1]
    shared = 0
    while shared < min(len(up_a), len(up_b)) and up_a[shared] == up_b[shared] and a.root_bus == b.root_bus:
        shared += 1
    start = max(shared - 1, 0)
    route = list(up_a[start:]) + [bdf for bdf in up_b[start:] if bdf not in up_a[start:]]
    return tuple(route)


@dataclass(frozen=True)
class AcsFinding:
    bdf: str
    description: str
    source_validation: bool


def acs_on_route(route: tuple[str, ...], lspci: LspciReport) -> list[AcsFinding]:
    """ACS Source Validation state of each bridge on the route; bridges without an ACS capability are
    not listed. A bridge lspci does not show, or whose capabilities it could not read, is an error."""
    findings = []
    for bdf in route:
        function = lspci.get(bdf)
        if function is None:
            raise MeasurementMissing(f"bridge {bdf} is on the PCIe path but missing from lspci -vvv")
        if not function.capabilities_readable:
            raise MeasurementMissing(f"lspci could not read the capabilities of {bdf} (run as root, or set ssh.sudo)")
        if function.acs_ctl is not None:
            findings.append(AcsFinding(bdf, function.description, function.acs_ctl.get("SrcValid", False)))
    return findings


def share_pcie_switch(a: PciDevicePath, b: PciDevicePath) -> bool:
    """True when both devices sit below one bridge beyond the root port (a PCIe switch), S0 1.3, 2.8.2."""
    return a.root_bus == b.root_bus and len(a.chain) > 2 and len(b.chain) > 2 and a.chain[:2] == b.chain[:2]
