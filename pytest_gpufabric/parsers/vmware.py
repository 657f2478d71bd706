"""VMware ESX host and VM configuration: ``/etc/vmware/passthru.map`` and a VM's ``.vmx`` settings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

PASSTHRU_TOOL = "passthru-map"
VMX_TOOL = "vmx-settings"
HEX_ID = re.compile(r"^[0-9a-fA-F]{4}$")
VMX_LINE = re.compile(r'^([A-Za-z0-9_.:]+)\s*=\s*"?([^"]*)"?$')


@dataclass(frozen=True)
class PassthruEntry:
    vendor_id: str  # lower-case hex, e.g. "10de"
    device_id: str  # lower-case hex, "ffff" = every device of the vendor
    reset_method: str  # "flr", "bridge", "d3d0", "link", "default"
    fpt_shareable: Optional[bool]


@parser(PASSTHRU_TOOL, "/etc/vmware/passthru.map: vendor, device, reset method, fptShareable per entry")
def parse_passthru_map(text: str) -> tuple[PassthruEntry, ...]:
    entries = []
    for line in clean_lines(PASSTHRU_TOOL, text):
        stripped = line.split("#")[0].strip()
        if not stripped:
            continue
        words = stripped.split()
        if len(words) not in (3, 4) or not HEX_ID.match(words[0]) or not HEX_ID.match(words[1]):
            fail(PASSTHRU_TOOL, f"expected '<vendor> <device> <resetMethod> [fptShareable]', found {stripped!r}")
        shareable = None
        if len(words) == 4:
            shareable = {"true": True, "false": False, "default": None}.get(words[3].lower(), None)
        entries.append(PassthruEntry(words[0].lower(), words[1].lower(), words[2].lower(), shareable))
    if not entries:
        fail(PASSTHRU_TOOL, "no entry (only comments)")
    return tuple(entries)


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
def parse_vmx_settings(text: str) -> VmxSettings:
    values: dict[str, str] = {}
    for line in clean_lines(VMX_TOOL, text):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith(".encoding"):
            continue
        match = VMX_LINE.match(stripped)
        if not match:
            fail(VMX_TOOL, f"expected 'key = \"value\"', found {stripped!r}")
        values[match.group(1)] = match.group(2)
    if not values:
        fail(VMX_TOOL, "no setting")
    return VmxSettings(values)
