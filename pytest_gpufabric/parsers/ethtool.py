"""``ethtool <netdev>`` (speed, duplex, link) and ``ethtool -i <netdev>`` (driver, firmware, bus)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_int

SETTINGS_TOOL = "ethtool"
DRIVER_TOOL = "ethtool-i"
KNOWN_SETTINGS = ("Speed", "Duplex", "Link detected", "Auto-negotiation", "Port")
KNOWN_DRIVER_FIELDS = ("driver", "version", "firmware-version", "bus-info")


@dataclass(frozen=True)
class EthtoolSettings:
    """Link settings. ``speed_mbps`` is None when ethtool printed none or ``Unknown!`` (link down)."""

    interface: Optional[str]
    speed_mbps: Optional[int]
    duplex: Optional[str]
    link_detected: Optional[bool]
    auto_negotiation: Optional[str]
    fields: dict[str, str]


def _fields(lines: list[str]) -> dict[str, str]:
    """``Key: value`` lines; continuation lines (link-mode lists, message-level names) have no colon."""
    fields: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.strip().partition(":")
        if sep and key:
            fields.setdefault(key.strip(), value.strip())
    return fields


@parser(SETTINGS_TOOL, "ethtool <netdev>: speed (Mb/s), duplex, auto-negotiation, link detected")
def parse_ethtool(text: str) -> EthtoolSettings:
    lines = clean_lines(SETTINGS_TOOL, text)
    header = re.match(r"^Settings for (\S+):$", lines[0].strip())
    fields = _fields(lines[1:] if header else lines)
    if not any(key in fields for key in KNOWN_SETTINGS):
        fail(SETTINGS_TOOL, f"none of {', '.join(KNOWN_SETTINGS)} found")
    speed: Optional[int] = None
    raw_speed = fields.get("Speed")
    if raw_speed is not None and not raw_speed.startswith("Unknown"):
        match = re.fullmatch(r"(\d+)\s*Mb/s", raw_speed)
        if not match:
            fail(SETTINGS_TOOL, f"Speed {raw_speed!r} is not '<n>Mb/s'")
        speed = parse_int(SETTINGS_TOOL, match.group(1), "Speed")
    link = fields.get("Link detected")
    if link is not None and link not in ("yes", "no"):
        fail(SETTINGS_TOOL, f"Link detected {link!r} is neither yes nor no")
    return EthtoolSettings(
        interface=header.group(1) if header else None,
        speed_mbps=speed,
        duplex=fields.get("Duplex"),
        link_detected=None if link is None else link == "yes",
        auto_negotiation=fields.get("Auto-negotiation"),
        fields=fields,
    )


@dataclass(frozen=True)
class EthtoolDriverInfo:
    driver: Optional[str]
    version: Optional[str]
    firmware_version: Optional[str]
    bus_info: Optional[str]  # normalized PCI address when it is one, else as printed
    fields: dict[str, str]


@parser(DRIVER_TOOL, "ethtool -i <netdev>: driver, version, firmware-version, bus-info")
def parse_ethtool_driver(text: str) -> EthtoolDriverInfo:
    fields = _fields(clean_lines(DRIVER_TOOL, text))
    if not any(key in fields for key in KNOWN_DRIVER_FIELDS):
        fail(DRIVER_TOOL, f"none of {', '.join(KNOWN_DRIVER_FIELDS)} found")
    bus = fields.get("bus-info") or None
    return EthtoolDriverInfo(
        driver=fields.get("driver") or None,
        version=fields.get("version") or None,
        firmware_version=fields.get("firmware-version") or None,
        bus_info=normalize_bdf(bus) if bus and is_bdf(bus) else bus,
        fields=fields,
    )
