"""``rocm-smi --showbus`` (GPU PCI addresses) and ``rocm-smi --showtopotype`` (GPU link types)."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail
from pytest_gpufabric.parsers.topology import TopologyMatrix

BUS_TOOL = "rocm-smi-showbus"
TOPO_TOOL = "rocm-smi-showtopotype"
BUS_LINE = re.compile(r"^GPU\[(\d+)\]\s*:\s*PCI Bus:\s*(\S+)$")


def _content(tool: str, text: str) -> list[str]:
    """Lines without the ``=== ROCm System Management Interface ===`` banners."""
    return [line for line in clean_lines(tool, text) if line.strip() and not line.strip().startswith("=")]


@parser(BUS_TOOL, "rocm-smi --showbus: GPU index -> PCI address")
def parse_rocm_smi_showbus(text: str) -> dict[int, str]:
    buses: dict[int, str] = {}
    for line in _content(BUS_TOOL, text):
        match = BUS_LINE.match(line.strip())
        if not match:
            if line.strip().startswith("GPU["):
                fail(BUS_TOOL, f"expected 'GPU[<n>] : PCI Bus: <address>', found {line.strip()!r}")
            continue
        index, bus = int(match.group(1)), match.group(2)
        if not is_bdf(bus):
            fail(BUS_TOOL, f"GPU[{index}]: {bus!r} is not a PCI address")
        if index in buses:
            fail(BUS_TOOL, f"GPU[{index}] listed twice")
        buses[index] = normalize_bdf(bus)
    if not buses:
        fail(BUS_TOOL, "no 'GPU[<n>] : PCI Bus:' line")
    return buses


@parser(TOPO_TOOL, "rocm-smi --showtopotype: link type (XGMI, PCIE) of every GPU pair")
def parse_rocm_smi_showtopotype(text: str) -> TopologyMatrix:
    lines = _content(TOPO_TOOL, text)
    header_index = next((i for i, line in enumerate(lines) if re.fullmatch(r"(\s*GPU\d+)+\s*", line)), None)
    if header_index is None:
        fail(TOPO_TOOL, "no 'GPU0 GPU1 ...' header row")
    devices = tuple(lines[header_index].split())
    links: dict[str, dict[str, str]] = {}
    for line in lines[header_index + 1 :]:
        words = line.split()
        if not words or not re.fullmatch(r"GPU\d+", words[0]):
            continue
        if len(words) != len(devices) + 1:
            fail(TOPO_TOOL, f"{words[0]}: expected {len(devices)} link types, found {len(words) - 1}")
        links[words[0]] = dict(zip(devices, words[1:]))
    missing = [device for device in devices if device not in links]
    if missing:
        fail(TOPO_TOOL, f"no row for {', '.join(missing)} (truncated output?)")
    return TopologyMatrix(devices, links, {})
