"""``lspci -vvv``: per PCI function its class, driver, ACS control flags and PCIe link capability / status.

A function starts with ``<bdf> <class>: <device>`` at the left margin (up to four spaces where a document
indented the whole output) and its lines follow, indented. Read by the parsing rule: the fields the checks judge
(``LnkCap``, ``LnkSta``, ``ACSCtl`` with their continuation lines, ``Kernel driver in use``) are taken only in
the forms pciutils prints them (``Speed 16GT/s (ok), Width x16 (ok)``; older releases without the ``(ok)``, and
the flags on the same line); such a line of another form (``Speed 2.5Gb/s`` of pciutils before 3.0, an OCR slip)
costs only that field of its function and is kept unread. Every other indented line is a property no check reads
(known), and so is the configuration space ``-x`` prints. A line at the left margin that is not a device line (a prompt, a warning) is unread, and so are the
indented lines after it up to the next device line: they belong to a device that cannot be told. A device listed
twice is read from its first listing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pytest_gpufabric.parsers.pci_path import normalize_bdf
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "lspci-vvv"
HEADER = re.compile(r"^ {0,4}((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(.+)$")
FLAG = re.compile(r"^([A-Za-z][A-Za-z0-9]*)([+-])$")
SPEED = re.compile(r"^Speed (?:(\d+(?:\.\d+)?)GT/s|(unknown))(?: \((ok|downgraded)\))?$")
WIDTH = re.compile(r"^Width x(\d+)(?: \((ok|downgraded)\))?$")
FIELD_START = re.compile(r"^\s*[A-Za-z][\w ]*:")
HEX_DUMP = re.compile(r"^[0-9a-f]{2,3}: ([0-9a-f]{2} ){15}[0-9a-f]{2}$")  # -x / -xxx / -xxxx: the configuration space
BRIDGE_CLASS = re.compile(r"^(PCI bridge|(Class )?0604)\b")  # by name, or by class code where lspci has no names
JUDGED = ("LnkCap", "LnkSta", "ACSCtl")
DRIVER = "Kernel driver in use"
INTERRUPTED = "lines lost"  # in ``unread_fields``: indented lines after an unread margin line, of no known device


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
    ``unread_fields`` names the judged fields whose line was not understood (and ``lines lost`` when lines that
    may be this function's could not be told apart): their absence then means nothing either.
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
    unread_fields: tuple[str, ...] = ()

    @property
    def acs_enabled(self) -> Optional[bool]:
        """True when any ACS control bit is on; None without an ACS capability."""
        return None if self.acs_ctl is None else any(self.acs_ctl.values())

    @property
    def acs_known(self) -> bool:
        """Whether ``acs_ctl`` (None included) is what lspci printed: no ACSCtl line was left unread."""
        return "ACSCtl" not in self.unread_fields and INTERRUPTED not in self.unread_fields


@dataclass(frozen=True)
class LspciReport:
    functions: tuple[PciFunction, ...]

    def get(self, bdf: str) -> Optional[PciFunction]:
        wanted = normalize_bdf(bdf)
        return next((function for function in self.functions if function.bdf == wanted), None)


@dataclass
class _Function:
    bdf: str
    description: str
    fields: dict[str, object] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)
    readable: bool = True


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _link(name: str, text: str) -> PcieLink:
    speeds = [SPEED.match(item) for item in _items(text) if item.startswith("Speed")]
    widths = [WIDTH.match(item) for item in _items(text) if item.startswith("Width")]
    if len(speeds) != 1 or len(widths) != 1 or speeds[0] is None or widths[0] is None:
        raise Unfit(f"{name}: expected one 'Speed <n>GT/s' and one 'Width x<n>', found {text!r}")
    speed, width = speeds[0], widths[0]
    return PcieLink(decimal(speed.group(1), f"{name} speed") if speed.group(1) else None, integer(width.group(1), f"{name} width"),
                    speed.group(3) == "downgraded", width.group(2) == "downgraded")


def _acs(text: str) -> dict[str, bool]:
    flags = [FLAG.match(word) for word in text.split()]
    if not flags or any(flag is None for flag in flags):
        raise Unfit(f"ACSCtl: expected flags such as 'SrcValid+ TransBlk-', found {text!r}")
    return {flag.group(1): flag.group(2) == "+" for flag in flags if flag}


def _judged(reading: Reading, lines: list[Line], function: _Function, name: str, text: str) -> None:
    """One judged field (its line and continuation lines) of ``function``."""
    try:
        if name in function.fields:
            raise Unfit(f"{name} given twice")
        function.fields[name] = _acs(text) if name == "ACSCtl" else _link(name, text)
    except Unfit as exc:
        function.unread.append(name)
        for line in lines:
            reading.unread(line, str(exc), function.bdf)
        return
    for line in lines:
        reading.used(line)


def _body(reading: Reading, function: _Function, body: list[Line]) -> None:
    """The indented lines of one function."""
    index = 0
    while index < len(body):
        line = body[index]
        name, _, value = line.stripped.partition(":")
        index += 1
        if name in JUDGED:
            lines = [line]
            while index < len(body) and body[index].indent > line.indent and not FIELD_START.match(body[index].text):
                lines.append(body[index])
                index += 1
            joint = " " if name == "ACSCtl" else ", "  # a link field's continuation holds flags of their own
            _judged(reading, lines, function, name, joint.join([value.strip(), *(more.stripped for more in lines[1:])]))
        elif name == DRIVER and value.strip():
            function.fields[DRIVER] = value.strip()
            reading.used(line)
        else:
            if "<access denied>" in line.text:
                function.readable = False
            reading.known(line)


def _function(function: _Function) -> PciFunction:
    class_name, _, _ = function.description.partition(": ")
    return PciFunction(
        bdf=function.bdf,
        class_name=re.sub(r"\s*\[[0-9a-fA-F]{4}\]$", "", class_name.strip()),
        description=function.description,
        is_bridge=bool(BRIDGE_CLASS.match(class_name.strip())),
        driver=function.fields.get(DRIVER),  # type: ignore[arg-type]
        capabilities_readable=function.readable,
        acs_ctl=function.fields.get("ACSCtl"),  # type: ignore[arg-type]
        link_cap=function.fields.get("LnkCap"),  # type: ignore[arg-type]
        link_sta=function.fields.get("LnkSta"),  # type: ignore[arg-type]
        unread_fields=tuple(function.unread),
    )


@parser(TOOL, "lspci -vvv [-s bdf]: class, bridge, ACSCtl flags, LnkCap/LnkSta speed, width, downgraded")
def parse_lspci(text: str) -> Parsed[LspciReport]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    functions: list[_Function] = []
    bodies: dict[str, list[Line]] = {}
    current: Optional[_Function] = None
    lost: Optional[str] = "before any device line: its device is not known"
    cut: Optional[_Function] = None  # the function before a margin line not understood: indented lines after it may be its own
    for line in reading.content():
        header = HEADER.match(line.text)
        if header:
            bdf, description = normalize_bdf(header.group(1)), header.group(2).strip()
            if ": " not in description or any(f.bdf == bdf for f in functions):
                lost = f"{bdf}: listed twice" if ": " in description else f"{bdf}: expected '<class>: <device>'"
                reading.unread(line, lost, bdf)
                current = cut = None
                continue
            current, lost, cut = _Function(bdf, description), None, None
            functions.append(current)
            bodies[bdf] = []
            reading.used(line)
        elif HEX_DUMP.match(line.text):
            reading.known(line)  # the configuration space that -x prints after the function's lines
        elif current is not None and line.indent:
            bodies[current.bdf].append(line)
        elif line.indent and lost is not None:
            reading.unread(line, lost)
            if cut is not None and INTERRUPTED not in cut.unread:
                cut.unread.append(INTERRUPTED)
        else:
            reading.unread(line, "expected a device line like '0000:00:01.0 PCI bridge: ...'")
            cut = current or cut
            current, lost = None, f"after the line {line.number} not understood: its device is not known"
    for function in functions:
        _body(reading, function, bodies[function.bdf])
    return reading.done(LspciReport(tuple(_function(f) for f in functions)), nothing="no PCI device line")
