"""The kernel's PCIe bandwidth message (``dmesg``), printed when a device is enumerated or its driver binds.

Two forms (Linux ``drivers/pci/pci.c``, ``__pcie_print_link_status``)::

    <dev>: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)
    <dev>: 7.876 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x1 link at 0000:00:00.0
           (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)

The second form says that a link on the way to the device (its own or an upstream bridge's, named after
``at``) runs below what the device is capable of: a card in the wrong slot, a degraded riser or lane split.
Some kernels append ``, in Flit mode``. Bandwidths are the kernel's own Gb/s figures (10^9 bits per second).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.pci_path import normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_float

TOOL = "kernel-pcie-bandwidth"

BDF = r"(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
MESSAGE = re.compile(
    rf"\s(?P<device>{BDF}): (?P<available>\d+\.\d+) Gb/s available PCIe bandwidth"
    r"(?:, limited by (?P<speed>\S+) GT/s PCIe x(?P<width>\d+) link at "
    rf"(?P<limiter>{BDF}|<unknown>) \(capable of (?P<capable>\d+\.\d+) Gb/s with "
    r"(?P<cap_speed>\S+) GT/s PCIe x(?P<cap_width>\d+) link\)"
    r"| \((?P<own_speed>\S+) GT/s PCIe x(?P<own_width>\d+) link\))"
)
MENTION = re.compile(r"Gb/s available PCIe bandwidth")


@dataclass(frozen=True)
class PcieBandwidthNotice:
    """One kernel message. ``limited_by`` is None when the device gets its full bandwidth."""

    device: str
    available_gbps: float
    speed: str  # "8.0", "16.0", "Unknown"
    width: int
    limited_by: str | None
    capable_gbps: float
    capable_speed: str
    capable_width: int

    @property
    def limited(self) -> bool:
        return self.limited_by is not None

    @property
    def available_fraction(self) -> float:
        """Available over capable bandwidth (1.0 for the full-bandwidth form)."""
        return self.available_gbps / self.capable_gbps if self.capable_gbps else 0.0


def _notice(match: re.Match[str]) -> PcieBandwidthNotice:
    device = normalize_bdf(match.group("device"))
    available = parse_float(TOOL, match.group("available"), "available bandwidth")
    if match.group("own_speed"):
        speed, width = match.group("own_speed"), int(match.group("own_width"))
        return PcieBandwidthNotice(device, available, speed, width, None, available, speed, width)
    limiter = match.group("limiter")
    return PcieBandwidthNotice(
        device, available, match.group("speed"), int(match.group("width")),
        "<unknown>" if limiter == "<unknown>" else normalize_bdf(limiter),
        parse_float(TOOL, match.group("capable"), "capable bandwidth"), match.group("cap_speed"),
        int(match.group("cap_width")),
    )


def pcie_bandwidth_notices(text: str) -> tuple[PcieBandwidthNotice, ...]:
    """Every PCIe bandwidth message in a kernel log (none is not an error: the kernel may not print one)."""
    notices = []
    for line in clean_lines(TOOL, text):
        if not MENTION.search(line):
            continue
        match = MESSAGE.search(line)
        if not match:
            fail(TOOL, f"PCIe bandwidth message in an unknown layout (wrapped or cut?): {line.strip()[:160]!r}")
        notices.append(_notice(match))
    return tuple(notices)


@parser(TOOL, "kernel 'Gb/s available PCIe bandwidth[, limited by ... (capable of ...)]' messages in dmesg")
def parse_pcie_bandwidth(text: str) -> tuple[PcieBandwidthNotice, ...]:
    notices = pcie_bandwidth_notices(text)
    if not notices:
        fail(TOOL, "no 'Gb/s available PCIe bandwidth' message")
    return notices


def notice_for(notices: tuple[PcieBandwidthNotice, ...], bdf: str) -> PcieBandwidthNotice | None:
    """The last message about device ``bdf`` (a driver reload prints it again)."""
    wanted = normalize_bdf(bdf)
    found = [notice for notice in notices if notice.device == wanted]
    return found[-1] if found else None
