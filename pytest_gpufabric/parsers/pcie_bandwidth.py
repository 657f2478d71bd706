"""The kernel's PCIe bandwidth message (``dmesg``), printed when a device is enumerated or its driver binds.

Two forms (Linux ``drivers/pci/pci.c``, ``__pcie_print_link_status``)::

    <dev>: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)
    <dev>: 7.876 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x1 link at 0000:00:00.0
           (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)

The second form says that a link on the way to the device (its own or an upstream bridge's, named after
``at``) runs below what the device is capable of: a card in the wrong slot, a degraded riser or lane split.
Some kernels append ``, in Flit mode``. Bandwidths are the kernel's own Gb/s figures (10^9 bits per second).
Read by the parsing rule: a message in another layout costs only its own device's notice and is kept unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.pci_path import normalize_bdf
from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "kernel-pcie-bandwidth"

BDF = r"(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
MESSAGE = re.compile(
    rf"\s(?P<device>{BDF}): (?P<available>\d+\.\d+) Gb/s available PCIe bandwidth"
    r"(?:, limited by (?P<speed>\S+) GT/s PCIe x(?P<width>\d+) link at "
    rf"(?P<limiter>{BDF}|<unknown>) \(capable of (?P<capable>\d+\.\d+) Gb/s with "
    r"(?P<cap_speed>\S+) GT/s PCIe x(?P<cap_width>\d+) link\)"
    r"| \((?P<own_speed>\S+) GT/s PCIe x(?P<own_width>\d+) link\))"
    r"(?:, in Flit mode)?\s*$"
)
MENTION = re.compile(r"Gb/s available PCIe bandwidth")
# The second half of a message a pager or a document wrapped: "(capable of ... link)" alone on its line.
CONTINUATION = re.compile(r"^\(?capable of [\d.]+ Gb/s with .* link\)$")


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
    available = decimal(match.group("available"), "available bandwidth")
    if match.group("own_speed"):
        speed, width = match.group("own_speed"), integer(match.group("own_width"), "width")
        return PcieBandwidthNotice(device, available, speed, width, None, available, speed, width)
    limiter = match.group("limiter")
    return PcieBandwidthNotice(
        device, available, match.group("speed"), integer(match.group("width"), "width"),
        "<unknown>" if limiter == "<unknown>" else normalize_bdf(limiter),
        decimal(match.group("capable"), "capable bandwidth"), match.group("cap_speed"),
        integer(match.group("cap_width"), "capable width"),
    )


@parser(TOOL, "kernel 'Gb/s available PCIe bandwidth[, limited by ... (capable of ...)]' messages in dmesg")
def pcie_bandwidth_notices(text: str) -> Parsed[tuple[PcieBandwidthNotice, ...]]:
    """Every PCIe bandwidth message in a kernel log. The other kernel messages are known (not this parser's
    subject); a bandwidth message in another layout (wrapped by a pager, cut) is unread, scoped to the device it
    names when one can be told. A log without any bandwidth message is refused (ParseError): the caller that reads
    a whole kernel log treats that as "no message"."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    notices = []
    scope = ""  # the device of the last message, for the second half of a wrapped one
    for line in reading.content():
        if not MENTION.search(line.text) and not CONTINUATION.match(line.stripped):
            reading.known(line)
            continue
        match = MESSAGE.search(line.text)
        named = re.search(rf"\s({BDF}):", line.text)
        scope = normalize_bdf(named.group(1)) if named else scope if CONTINUATION.match(line.stripped) else ""
        with reading.row(line, scope=scope):
            if not match:
                raise Unfit("PCIe bandwidth message in an unknown layout (wrapped or cut?)")
            notices.append(_notice(match))
    return reading.done(tuple(notices), nothing="no 'Gb/s available PCIe bandwidth' message")


parse_pcie_bandwidth = pcie_bandwidth_notices


def notice_for(notices: tuple[PcieBandwidthNotice, ...], bdf: str) -> PcieBandwidthNotice | None:
    """The last message about device ``bdf`` (a driver reload prints it again)."""
    wanted = normalize_bdf(bdf)
    found = [notice for notice in notices if notice.device == wanted]
    return found[-1] if found else None
