"""PCIe topology (PCI-*): which bridges a NIC-GPU peer-to-peer transfer crosses, their ACS state, path bandwidth."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.checks.node_facts import PcieLinkState
from pytest_gpufabric.errors import MeasurementMissing, ParseError
from pytest_gpufabric.parsers.dmesg import KernelLog
from pytest_gpufabric.parsers.lspci import LspciReport
from pytest_gpufabric.parsers.pci_path import PciDevicePath, normalize_bdf
from pytest_gpufabric.parsers.pcie_bandwidth import MENTION, PcieBandwidthNotice, notice_for, pcie_bandwidth_notices


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
        if not function.acs_known:
            raise MeasurementMissing(f"the ACS control line of {bdf} in lspci -vvv was not understood")
        if function.acs_ctl is not None:
            findings.append(AcsFinding(bdf, function.description, function.acs_ctl.get("SrcValid", False)))
    return findings


def share_pcie_switch(a: PciDevicePath, b: PciDevicePath) -> bool:
    """True when both devices sit below one bridge beyond the root port (a PCIe switch), S0 1.3, 2.8.2."""
    return a.root_bus == b.root_bus and len(a.chain) > 2 and len(b.chain) > 2 and a.chain[:2] == b.chain[:2]


# Usable Mb/s per lane after line encoding, as the kernel reckons it (include/linux/pci.h PCIE_SPEED2MBS_ENC:
# 8b/10b up to 5 GT/s, 128b/130b from 8 GT/s).
LANE_MBPS = {2.5: 2000, 5.0: 4000, 8.0: 7877, 16.0: 15754, 32.0: 31508, 64.0: 64000}


@dataclass(frozen=True)
class PathBandwidth:
    """Available over capable PCIe bandwidth of a device (1.0 = full), and how it was found."""

    fraction: float | None
    detail: str


def _link_bandwidth(speed_gts: float | None, width: int | None) -> int | None:
    if speed_gts is None or width is None or speed_gts not in LANE_MBPS:
        return None
    return LANE_MBPS[speed_gts] * width


def _kernel_notice(text: str, bdf: str) -> PcieBandwidthNotice | None:
    """The kernel's last bandwidth message about ``bdf``; None when the log has none. A message in a layout not
    understood that names ``bdf`` (or no device) could be the one: then the value is missing, never guessed."""
    if not MENTION.search(text):
        return None
    try:
        parsed = pcie_bandwidth_notices(text)
    except ParseError as exc:
        raise MeasurementMissing(f"dmesg: {exc}") from None
    notice = notice_for(parsed.facts, bdf)
    unsure = [u for u in parsed.unread_for((normalize_bdf(bdf),)) if u.scope or MENTION.search(u.text)]
    if notice is None and unsure:
        raise MeasurementMissing(f"dmesg: the PCIe bandwidth message of {bdf} may be the one not understood at "
                                 f"{unsure[0].describe()}")
    return notice


def bandwidth_on_path(log: KernelLog, bdf: str, link: PcieLinkState) -> PathBandwidth:
    """The kernel's verdict on the whole path to ``bdf``: its "available PCIe bandwidth" message (which names
    a slower upstream link too), else, when the kernel enumerated the device without a "limited by" message,
    full bandwidth; when the boot messages are no longer in the log, the device's own link."""
    text = "".join(f"{line.text}\n" for line in log.lines)
    notice = _kernel_notice(text, bdf)
    if notice is not None:
        where = f", limited by the link at {notice.limited_by}" if notice.limited else ""
        return PathBandwidth(notice.available_fraction, f"kernel: {notice.available_gbps} of {notice.capable_gbps} Gb/s "
                                                        f"available ({notice.speed} GT/s x{notice.width}){where}")
    if any(f" {normalize_bdf(bdf)}: " in f" {line.text} " for line in log.lines):
        return PathBandwidth(1.0, f"kernel enumerated {normalize_bdf(bdf)} without a 'limited by' bandwidth message")
    running, capable = _link_bandwidth(link.speed_gts, link.width), _link_bandwidth(link.cap_speed_gts, link.cap_width)
    if running is None or not capable:
        return PathBandwidth(None, f"no kernel bandwidth message for {bdf} and its link speed is unknown ({link.detail})")
    return PathBandwidth(running / capable, f"{bdf}'s boot messages are no longer in dmesg; from its own link ({link.detail})")
