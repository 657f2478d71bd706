"""PCI addresses and the sysfs path of a PCI device (``readlink -f /sys/bus/pci/devices/<bdf>``): one line, read
by the parsing rule (another line, such as a warning, is kept unread; a second path too)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser

TOOL = "sysfs-pci-path"
BDF = re.compile(r"^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$")
SYSFS_ROOT = re.compile(r"^pci([0-9a-fA-F]{4}):([0-9a-fA-F]{2})$")


def normalize_bdf(address: str) -> str:
    """``bb:dd.f``, ``dddd:bb:dd.f`` or nvidia-smi's ``00000000:bb:dd.f`` as lower-case ``dddd:bb:dd.f``.

    Raises ValueError for anything else (parsers turn it into a ParseError)."""
    match = BDF.match(address.strip())
    if not match:
        raise ValueError(f"not a PCI address: {address.strip()!r}")
    domain, bus, device, function = match.groups()
    domain = (domain or "0000")[-4:]
    return f"{domain}:{bus}:{device}.{function}".lower()


def is_bdf(address: str) -> bool:
    return BDF.match(address.strip()) is not None


@dataclass(frozen=True)
class PciDevicePath:
    """Where a device sits: its root bus and the chain of PCI functions from the root port down to it."""

    root_bus: str  # "dddd:bb"
    chain: tuple[str, ...]  # normalized BDFs, root port first, the device itself last

    @property
    def device(self) -> str:
        return self.chain[-1]

    @property
    def upstream(self) -> tuple[str, ...]:
        """The bridges above the device (root port first)."""
        return self.chain[:-1]


def _device_path(line: Line) -> PciDevicePath:
    path = line.stripped
    parts = [part for part in path.split("/") if part]
    if parts[:2] != ["sys", "devices"] or len(parts) < 4:
        raise Unfit(f"not a sysfs PCI device path: {path!r}")
    root = SYSFS_ROOT.match(parts[2])
    if not root:
        raise Unfit(f"expected a root bus like 'pci0000:00' after /sys/devices, found {parts[2]!r}")
    chain = []
    for part in parts[3:]:
        if not is_bdf(part):
            raise Unfit(f"path component {part!r} is not a PCI function in {path!r}")
        chain.append(normalize_bdf(part))
    return PciDevicePath(root_bus=f"{root.group(1)}:{root.group(2)}".lower(), chain=tuple(chain))


@parser(TOOL, "readlink -f /sys/bus/pci/devices/<bdf>: chain of PCI functions from the root port to the device")
def parse_pci_device_path(text: str) -> Parsed[PciDevicePath]:
    reading = Reading(TOOL, text)
    found: PciDevicePath | None = None
    for line in reading.content():
        if found is not None:
            reading.unread(line, "a second line: readlink prints one path")
            continue
        with reading.row(line):
            found = _device_path(line)
    return reading.done(found, nothing="no sysfs PCI device path")  # type: ignore[arg-type]
