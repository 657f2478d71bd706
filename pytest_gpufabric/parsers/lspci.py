"""``lspci -vvv``: per PCI function its class, ACS control flags and PCIe link capability / status."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.pci_path import normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_float, parse_int

TOOL = "lspci-vvv"
HEADER = re.compile(r"^ {0,4}((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(.+)$")
FLAG = re.compile(r"([A-Za-z][A-Za-z0-9]*)([+-])(?=\s|$)")
SPEED = re.compile(r"Speed\s+(?:([0-9.]+)GT/s|(unknown))(?:\s*\((\w+)\))?")
WIDTH = re.compile(r"Width\s+x(\d+)(?:\s*\((\w+)\))?")
FIELD_START = re.compile(r"^\s*[A-Za-z][\w ]*:")


@dataclass(frozen=True)
class PcieLink:
    """A LnkCap or LnkSta line: speed in GT/s and width in lanes (None when lspci printed none/unknown)."""

    speed_gts: Optional[float]
    width: Optional[int]
    speed_downgraded: bool
    width_downgraded: bool

    @property
    def downgraded(self) -> bool:
        return self.speed_downgraded or self.width_downgraded


@dataclass(frozen=True)
class PciFunction:
    """One PCI function of ``lspci -vvv``.

    ``acs_ctl`` is None when the function has no ACS capability; ``capabilities_readable`` is False when
    lspci could not read the extended capabilities (not run as root), so absent ACS / link lines mean nothing.
    """

    bdf: str
    class_name: str
    description: str
    is_bridge: bool
    driver: Optional[str]
    capabilities_readable: bool
    acs_ctl: Optional[dict[str, bool]]
    link_cap: Optional[PcieLink]
    link_sta: Optional[PcieLink]

    @property
    def acs_enabled(self) -> Optional[bool]:
        """True when any ACS control bit is on; None without an ACS capability."""
        return None if self.acs_ctl is None else any(self.acs_ctl.values())


@dataclass(frozen=True)
class LspciReport:
    functions: tuple[PciFunction, ...]

    def get(self, bdf: str) -> Optional[PciFunction]:
        wanted = normalize_bdf(bdf)
        return next((function for function in self.functions if function.bdf == wanted), None)


def _field(lines: list[str], name: str) -> Optional[str]:
    """The text of field ``name`` (e.g. ``ACSCtl``) with its continuation lines joined, or None."""
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(name + ":"):
            text = stripped[len(name) + 1 :]
            indent = len(line) - len(line.lstrip())
            for follow in lines[index + 1 :]:
                follow_indent = len(follow) - len(follow.lstrip())
                if FIELD_START.match(follow) or follow_indent < indent or not follow.strip():
                    break
                text += " " + follow.strip()
            return text.strip()
    return None


def _link(bdf: str, name: str, text: Optional[str]) -> Optional[PcieLink]:
    if text is None:
        return None
    speed, width = SPEED.search(text), WIDTH.search(text)
    if not speed and not width:
        fail(TOOL, f"{bdf}: {name} has neither speed nor width: {text!r}")
    gts = parse_float(TOOL, speed.group(1), f"{bdf} {name} speed") if speed and speed.group(1) else None
    lanes = parse_int(TOOL, width.group(1), f"{bdf} {name} width") if width else None
    return PcieLink(
        speed_gts=gts,
        width=lanes,
        speed_downgraded=bool(speed and speed.group(3) == "downgraded"),
        width_downgraded=bool(width and width.group(2) == "downgraded"),
    )


def _acs(bdf: str, text: Optional[str]) -> Optional[dict[str, bool]]:
    if text is None:
        return None
    flags = {name: sign == "+" for name, sign in FLAG.findall(text)}
    if not flags:
        fail(TOOL, f"{bdf}: ACSCtl line without flags: {text!r}")
    return flags


def _function(header: re.Match[str], body: list[str]) -> PciFunction:
    bdf = normalize_bdf(header.group(1))
    description = header.group(2).strip()
    class_name, sep, _ = description.partition(": ")
    if not sep:
        fail(TOOL, f"{bdf}: expected '<class>: <device>' after the address, found {description!r}")
    driver = _field(body, "Kernel driver in use")
    return PciFunction(
        bdf=bdf,
        class_name=re.sub(r"\s*\[[0-9a-fA-F]{4}\]$", "", class_name.strip()),
        description=description,
        is_bridge=class_name.strip().startswith("PCI bridge"),
        driver=driver,
        capabilities_readable=not any("<access denied>" in line for line in body),
        acs_ctl=_acs(bdf, _field(body, "ACSCtl")),
        link_cap=_link(bdf, "LnkCap", _field(body, "LnkCap")),
        link_sta=_link(bdf, "LnkSta", _field(body, "LnkSta")),
    )


@parser(TOOL, "lspci -vvv [-s bdf]: class, bridge, ACSCtl flags, LnkCap/LnkSta speed, width, downgraded")
def parse_lspci(text: str) -> LspciReport:
    lines = clean_lines(TOOL, text)
    functions: list[PciFunction] = []
    header: Optional[re.Match[str]] = None
    body: list[str] = []
    for line in lines:
        match = HEADER.match(line)
        if match:
            if header:
                functions.append(_function(header, body))
            header, body = match, []
        elif header:
            body.append(line)
        elif line.strip():
            fail(TOOL, f"expected a device line like '0000:00:01.0 PCI bridge: ...', found {line.strip()!r}")
    if header:
        functions.append(_function(header, body))
    if not functions:
        fail(TOOL, "no PCI device found")
    seen = [function.bdf for function in functions]
    duplicates = sorted({bdf for bdf in seen if seen.count(bdf) > 1})
    if duplicates:
        fail(TOOL, f"device listed twice: {', '.join(duplicates)}")
    return LspciReport(tuple(functions))
