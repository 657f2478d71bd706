"""The kernel's PCIe link files of one device: ``/sys/bus/pci/devices/<bdf>/{current,max}_link_{speed,width}``.

Read with ``grep -H . <dir>/current_link_speed <dir>/current_link_width <dir>/max_link_speed <dir>/max_link_width``,
one ``<path>:<value>`` line each. Speeds read ``16.0 GT/s PCIe`` (kernels since 4.19 add ``PCIe``), ``8 GT/s``
in older kernels, or ``Unknown`` (link down: None here). These are the same fields ``lspci`` shows as LnkSta and
LnkCap, taken from the kernel when pciutils is not installed. Read by the parsing rule: a line of another form,
file or device costs only its own value (kept unread); a value not read is None, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.commands import sh
from pytest_gpufabric.parsers.pci_path import normalize_bdf
from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "sysfs-pci-link"
FIELDS = ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")
LINE = re.compile(r"^(?:.*/)?(?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/(?P<field>\w+):(?P<value>.*)$")
SPEED = re.compile(r"^(\d+(?:\.\d+)?) GT/s(?: PCIe)?$")


@dataclass(frozen=True)
class SysfsPcieLink:
    """Current and maximum link of one device (speed in GT/s, width in lanes; None: link down, unknown, or its
    line not read)."""

    bdf: str
    current_speed_gts: Optional[float]
    current_width: Optional[int]
    max_speed_gts: Optional[float]
    max_width: Optional[int]
    missing: tuple[str, ...] = ()  # the files whose line the output lacks or that were not understood

    @property
    def below_capability(self) -> Optional[bool]:
        """True when the link runs below its capability (a link down included); None when a file was not read."""
        if self.missing:
            return None
        return (self.current_speed_gts, self.current_width) != (self.max_speed_gts, self.max_width)


def _value(field: str, value: str) -> Optional[float | int]:
    """The speed (GT/s) or width of one file; None for ``Unknown`` or a width of 0 (link down)."""
    if field.endswith("speed"):
        if value == "Unknown":
            return None
        match = SPEED.match(value)
        if not match:
            raise Unfit(f"{field}: expected '<n> GT/s [PCIe]' or 'Unknown', found {value!r}")
        return decimal(match.group(1), field)
    return integer(value, field) or None


@parser(TOOL, "grep -H . /sys/bus/pci/devices/<bdf>/{current,max}_link_{speed,width}: link speed and width")
def parse_sysfs_pci_link(text: str) -> Parsed[SysfsPcieLink]:
    """The link files of one device; a line of another device, another file or another form costs only itself."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    values: dict[str, Optional[float | int]] = {}
    device: Optional[str] = None
    for line in reading.content():
        match = LINE.match(line.stripped)
        if not match or match.group("field") not in FIELDS:
            reading.unread(line, f"expected '<...>/<bdf>/<{'|'.join(FIELDS)}>:<value>'")
            continue
        bdf, field = normalize_bdf(match.group("bdf")), match.group("field")
        with reading.row(line, scope=bdf):
            if device is not None and bdf != device:
                raise Unfit(f"a file of {bdf}, while the output is read for {device}")
            if field in values:
                raise Unfit(f"{field} given twice")
            values[field] = _value(field, match.group("value").strip())
            device = bdf
    link = SysfsPcieLink(device or "", values.get("current_link_speed"), values.get("current_link_width"),  # type: ignore[arg-type]
                         values.get("max_link_speed"), values.get("max_link_width"),  # type: ignore[arg-type]
                         tuple(field for field in FIELDS if field not in values))
    return reading.done(link, nothing="no '<bdf>/<link file>:<value>' line")


def link_files_command(bdf: str) -> str:
    """The read-only command whose output ``parse_sysfs_pci_link`` reads (``bdf`` must be validated before)."""
    folder = f"/sys/bus/pci/devices/{normalize_bdf(bdf)}"
    return sh("grep", "-H", ".", *(f"{folder}/{field}" for field in FIELDS))
