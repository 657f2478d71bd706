"""VMware ESX host and VM configuration: ``/etc/vmware/passthru.map`` and a VM's ``.vmx`` settings.

Both are read by the parsing rule: a line of another form (a document's bullet, a wrapped line) costs only its
own entry or setting and is kept unread; comments are known. A VMX key set twice (a grep over two copies of a
VM's file) is read from neither line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

PASSTHRU_TOOL = "passthru-map"
VMX_TOOL = "vmx-settings"
HEX_ID = re.compile(r"^[0-9a-fA-F]{4}$")
RESET_METHODS = ("flr", "d3d0", "link", "bridge", "default")  # the methods passthru.map's own header lists
SHAREABLE = {"true": True, "false": False, "default": None}
VMX_LINE = re.compile(r'^([A-Za-z0-9_.:]+)\s*=\s*"([^"]*)"$|^([A-Za-z0-9_.:]+)\s*=\s*([^"\s]+)$')


@dataclass(frozen=True)
class PassthruEntry:
    vendor_id: str  # lower-case hex, e.g. "10de"
    device_id: str  # lower-case hex, "ffff" = every device of the vendor
    reset_method: str  # "flr", "bridge", "d3d0", "link", "default"
    fpt_shareable: Optional[bool]


@parser(PASSTHRU_TOOL, "/etc/vmware/passthru.map: vendor, device, reset method, fptShareable per entry")
def parse_passthru_map(text: str) -> Parsed[tuple[PassthruEntry, ...]]:
    reading = Reading(PASSTHRU_TOOL, text)
    refuse_unfinished_line(reading, text)
    entries = []
    for line in reading.content():
        stripped = line.text.split("#")[0].strip()
        if not stripped:
            reading.known(line)
            continue
        words = stripped.split()
        with reading.row(line, scope=words[0].lower()):
            if len(words) not in (3, 4) or not HEX_ID.match(words[0]) or not HEX_ID.match(words[1]):
                raise Unfit("expected '<vendor> <device> <resetMethod> [fptShareable]'")
            if words[2].lower() not in RESET_METHODS:
                raise Unfit(f"reset method {words[2]!r} is none of {', '.join(RESET_METHODS)}")
            if len(words) == 4 and words[3].lower() not in SHAREABLE:
                raise Unfit(f"fptShareable {words[3]!r} is none of true, false, default")
            shareable = SHAREABLE[words[3].lower()] if len(words) == 4 else None
            entries.append(PassthruEntry(words[0].lower(), words[1].lower(), words[2].lower(), shareable))
    return reading.done(tuple(entries), nothing="no '<vendor> <device> <resetMethod>' entry")


@dataclass(frozen=True)
class VmxSettings:
    """``key = "value"`` settings of a VM (keys compared case-insensitively, as ESX does)."""

    values: dict[str, str]

    def get(self, key: str) -> Optional[str]:
        lowered = key.lower()
        return next((value for name, value in self.values.items() if name.lower() == lowered), None)

    def get_bool(self, key: str) -> Optional[bool]:
        value = self.get(key)
        return None if value is None else {"true": True, "false": False}.get(value.lower())


@parser(VMX_TOOL, "a VM's .vmx (or advanced settings export): key = \"value\" lines, e.g. pciPassthru.*")
def parse_vmx_settings(text: str) -> Parsed[VmxSettings]:
    reading = Reading(VMX_TOOL, text)
    refuse_unfinished_line(reading, text)
    values: dict[str, str] = {}
    lines: dict[str, Line] = {}  # lower-cased key -> its line
    twice: set[str] = set()
    for line in reading.content():
        if line.stripped.startswith(("#", ".encoding")):
            reading.known(line)
            continue
        match = VMX_LINE.match(line.stripped)
        if not match:
            words = line.stripped.split("=")[0].split()
            reading.unread(line, "expected 'key = \"value\"'", words[-1].lower() if words else "")
            continue
        key, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        if key.lower() in lines:
            twice.add(key.lower())
            reading.unread(line, f"{key} set twice: neither value is read", key.lower())
            continue
        values[key], lines[key.lower()] = value, line
        reading.used(line)
    for key in twice:
        reading.unread(lines[key], "set twice: neither value is read", key)
        values = {name: value for name, value in values.items() if name.lower() != key}
    return reading.done(VmxSettings(values), nothing="no 'key = \"value\"' setting")
