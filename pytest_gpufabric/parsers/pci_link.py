"""The kernel's PCIe link files of one device: ``/sys/bus/pci/devices/<bdf>/{current,max}_link_{speed,width}``.

Read with ``grep -H . <dir>/current_link_speed <dir>/current_link_width <dir>/max_link_speed <dir>/max_link_width``,
one ``<path>:<value>`` line each. Speeds read ``16.0 GT/s PCIe`` (kernels since 4.19 add ``PCIe``), ``8 GT/s``
in older kernels, or ``Unknown`` (link down: None here). These are the same fields ``lspci`` shows as LnkSta and
LnkCap, taken from the kernel when pciutils is not installed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.commands import sh
from pytest_gpufabric.parsers.pci_path import normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_float

TOOL = "sysfs-pci-link"
FIELDS = ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")
LINE = re.compile(r"^(?:.*/)?(?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/(?P<field>\w+):(?P<value>.*)$")
SPEED = re.compile(r"^(\d+(?:\.\d+)?) GT/s(?: PCIe)?$")


@dataclass(frozen=True)
class SysfsPcieLink:
    """Current and maximum link of one device (speed in GT/s, width in lanes; None: link down or unknown)."""

    bdf: str
    current_speed_gts: Optional[float]
    current_width: Optional[int]
    max_speed_gts: Optional[float]
    max_width: Optional[int]

    @property
    def below_capability(self) -> bool:
        return (self.current_speed_gts, self.current_width) != (self.max_speed_gts, self.max_width)


def _speed(value: str, field: str) -> Optional[float]:
    if value == "Unknown":
        return None
    match = SPEED.match(value)
    if not match:
        fail(TOOL, f"{field}: expected '<n> GT/s [PCIe]' or 'Unknown', found {value!r}")
    return parse_float(TOOL, match.group(1), field)


def _width(value: str, field: str) -> Optional[int]:
    if not value.isdigit():
        fail(TOOL, f"{field}: expected a lane count, found {value!r}")
    return int(value) or None


@parser(TOOL, "grep -H . /sys/bus/pci/devices/<bdf>/{current,max}_link_{speed,width}: link speed and width")
def parse_sysfs_pci_link(text: str) -> SysfsPcieLink:
    values: dict[str, str] = {}
    devices: set[str] = set()
    for line in clean_lines(TOOL, text):
        if not line.strip():
            continue
        match = LINE.match(line.strip())
        if not match or match.group("field") not in FIELDS:
            fail(TOOL, f"expected '<...>/<bdf>/<{'|'.join(FIELDS)}>:<value>', found {line.strip()[:120]!r}")
        devices.add(normalize_bdf(match.group("bdf")))
        values[match.group("field")] = match.group("value").strip()
    if len(devices) != 1:
        fail(TOOL, f"expected the link files of one device, found {len(devices)}")
    missing = [field for field in FIELDS if field not in values]
    if missing:
        fail(TOOL, f"{', '.join(missing)} missing (no PCIe capability, or not readable)")
    return SysfsPcieLink(devices.pop(), _speed(values["current_link_speed"], "current_link_speed"),
                         _width(values["current_link_width"], "current_link_width"),
                         _speed(values["max_link_speed"], "max_link_speed"), _width(values["max_link_width"], "max_link_width"))


def link_files_command(bdf: str) -> str:
    """The read-only command whose output ``parse_sysfs_pci_link`` reads (``bdf`` must be validated before)."""
    folder = f"/sys/bus/pci/devices/{normalize_bdf(bdf)}"
    return sh("grep", "-H", ".", *(f"{folder}/{field}" for field in FIELDS))
