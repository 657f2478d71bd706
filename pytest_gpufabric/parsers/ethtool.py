"""``ethtool <netdev>`` (speed, duplex, link) and ``ethtool -i <netdev>`` (driver, firmware, bus).

Both print ``Key: value`` lines (``ethtool`` under a ``Settings for <netdev>:`` line, its link-mode lists
continued on indented lines without a colon), read by the parsing rule: a value comes only from a line
understood whole (``Speed: 400000Mb/s``, ``Link detected: yes``); a line of another form costs only its own
facts and is kept unread; an output is refused only when no line gave one of the facts the checks judge. A shell
prompt pasted above the output (``root@node:~# ethtool eth2``), an ssh warning and ethtool's complaints about a
part it could not read (``Cannot get wake-on-lan settings: Operation not permitted``) are known, never fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import COMMAND_PROMPT

SETTINGS_TOOL = "ethtool"
DRIVER_TOOL = "ethtool-i"
KNOWN_SETTINGS = ("Speed", "Duplex", "Link detected", "Auto-negotiation", "Port")
KNOWN_DRIVER_FIELDS = ("driver", "version", "firmware-version", "bus-info")
SETTINGS_HEADER = re.compile(r"^Settings for (\S+):$")
SPEED = re.compile(r"^(\d+)\s*Mb/s$")
# Lines beside the output that are no field of it: an ssh warning, ethtool's own complaint when run without the
# rights for a part (``Cannot get wake-on-lan settings: Operation not permitted``, ``netlink error: ...``).
NOT_A_FIELD = re.compile(r"^(Warning|WARNING|warning|Cannot get|Cannot read|netlink error|ethtool:|Last login:)")


@dataclass(frozen=True)
class EthtoolSettings:
    """Link settings. ``speed_mbps`` is None when ethtool printed none or ``Unknown!`` (link down)."""

    interface: Optional[str]
    speed_mbps: Optional[int]
    duplex: Optional[str]
    link_detected: Optional[bool]
    auto_negotiation: Optional[str]
    fields: dict[str, str]


SETTINGS_NAME = re.compile(r"^[A-Z][A-Za-z0-9 ./()_-]*$")  # "Speed", "Link detected", "MDI-X", "Current message level"
DRIVER_NAME = re.compile(r"^[a-z][a-z0-9-]*$")  # "driver", "firmware-version", "bus-info"


def _field(line: Line, name: re.Pattern[str] = SETTINGS_NAME) -> tuple[str, str] | None:
    """``(key, value)`` of a ``Key: value`` line whose key has the form of the fields ethtool prints; None
    otherwise."""
    key, sep, value = line.stripped.partition(":")
    return (key.strip(), value.strip()) if sep and name.match(key.strip()) else None


def _settings_field(key: str, value: str) -> object:
    """The judged value of a settings line; ``Unfit`` when it has not the form ethtool prints."""
    if key == "Speed":
        if value.startswith("Unknown"):
            return None
        match = SPEED.match(value)
        if not match:
            raise Unfit(f"Speed {value!r} is not '<n>Mb/s'")
        return integer(match.group(1), "Speed")
    if key == "Link detected":
        if value not in ("yes", "no"):
            raise Unfit(f"Link detected {value!r} is neither yes nor no")
        return value == "yes"
    return value


@parser(SETTINGS_TOOL, "ethtool <netdev>: speed (Mb/s), duplex, auto-negotiation, link detected")
def parse_ethtool(text: str) -> Parsed[EthtoolSettings]:
    reading = Reading(SETTINGS_TOOL, text)
    interface: Optional[str] = None
    fields: dict[str, str] = {}
    judged: dict[str, object] = {}
    for line in reading.content():
        header = SETTINGS_HEADER.match(line.stripped)
        field = _field(line)
        if COMMAND_PROMPT.match(line.stripped) or NOT_A_FIELD.match(line.stripped):
            reading.known(line)
        elif header and interface is None:
            interface = header.group(1)
            reading.known(line)
        elif field is None:
            if fields and line.indent:
                reading.known(line)  # a link-mode list or message-level names continued
            else:
                reading.unread(line, "expected 'Key: value'")
        elif field[0] in KNOWN_SETTINGS and field[0] not in judged:
            with reading.row(line, scope=field[0]):
                judged[field[0]] = _settings_field(*field)
                fields[field[0]] = field[1]
        else:
            fields.setdefault(*field)
            reading.known(line)
    settings = EthtoolSettings(
        interface=interface,
        speed_mbps=judged.get("Speed"),  # type: ignore[arg-type]
        duplex=fields.get("Duplex") if "Duplex" in judged else None,
        link_detected=judged.get("Link detected"),  # type: ignore[arg-type]
        auto_negotiation=fields.get("Auto-negotiation") if "Auto-negotiation" in judged else None,
        fields=fields,
    )
    return reading.done(settings, nothing=f"none of {', '.join(KNOWN_SETTINGS)} found")


@dataclass(frozen=True)
class EthtoolDriverInfo:
    driver: Optional[str]
    version: Optional[str]
    firmware_version: Optional[str]
    bus_info: Optional[str]  # normalized PCI address when it is one, else as printed
    fields: dict[str, str]


@parser(DRIVER_TOOL, "ethtool -i <netdev>: driver, version, firmware-version, bus-info")
def parse_ethtool_driver(text: str) -> Parsed[EthtoolDriverInfo]:
    reading = Reading(DRIVER_TOOL, text)
    fields: dict[str, str] = {}
    for line in reading.content():
        field = _field(line, DRIVER_NAME)
        if COMMAND_PROMPT.match(line.stripped) or NOT_A_FIELD.match(line.stripped):
            reading.known(line)
        elif field is None:
            reading.unread(line, "expected 'key: value'")
        elif field[0] in fields:
            reading.unread(line, f"{field[0]} given twice", field[0])
        else:
            fields[field[0]] = field[1]
            (reading.used if field[0] in KNOWN_DRIVER_FIELDS else reading.known)(line)
    bus = fields.get("bus-info") or None
    info = EthtoolDriverInfo(
        driver=fields.get("driver") or None,
        version=fields.get("version") or None,
        firmware_version=fields.get("firmware-version") or None,
        bus_info=normalize_bdf(bus) if bus and is_bdf(bus) else bus,
        fields=fields,
    )
    return reading.done(info, nothing=f"none of {', '.join(KNOWN_DRIVER_FIELDS)} found")
