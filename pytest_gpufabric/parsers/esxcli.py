"""``esxcli system settings kernel list -o <name>``: ESX kernel settings (VM-001: ACS and ATS)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "esxcli-kernel-settings"
HEADER = ["Name", "Type", "Configured", "Runtime", "Default", "Description"]


@dataclass(frozen=True)
class EsxKernelSetting:
    name: str
    type: str  # "Bool", "uint32", ...
    configured: str
    runtime: str
    default: str
    description: str

    @property
    def runtime_bool(self) -> Optional[bool]:
        """The runtime value of a Bool setting; None for other types."""
        if self.type.lower() != "bool":
            return None
        return {"true": True, "false": False}.get(self.runtime.lower())


@parser(TOOL, "esxcli system settings kernel list [-o name]: configured, runtime and default values")
def parse_esxcli_kernel_settings(text: str) -> dict[str, EsxKernelSetting]:
    lines = [line.strip() for line in clean_lines(TOOL, text) if line.strip()]
    if not lines or lines[0].split() != HEADER:
        fail(TOOL, f"expected the header '{' '.join(HEADER)}', found {lines[0][:60]!r}")
    settings: dict[str, EsxKernelSetting] = {}
    for line in lines[1:]:
        if set(line.replace(" ", "")) <= {"-"}:
            continue
        words = line.split(None, 5)
        if len(words) < 5:
            fail(TOOL, f"expected '<name> <type> <configured> <runtime> <default> <description>', found {line!r}")
        name, kind, configured, runtime, default = words[:5]
        settings[name] = EsxKernelSetting(name, kind, configured, runtime, default, words[5] if len(words) > 5 else "")
    if not settings:
        fail(TOOL, "header without settings (unknown option name?)")
    return settings
