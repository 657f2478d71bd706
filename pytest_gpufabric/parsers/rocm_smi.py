"""``rocm-smi --showbus`` (GPU PCI addresses), ``--showtopotype`` (GPU link types) and ``--showtopo`` (all tables).

``--showtopo`` prints, each under its ``=== <title> ===`` banner, the weight, hops and link type matrices, an
access matrix in some releases, and the NUMA node and affinity of each GPU; warnings (``WARNING: AMD GPU
device(s) is/are in a low-power state``) may come before them.
"""

from __future__ import annotations

import re

from dataclasses import dataclass

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail
from pytest_gpufabric.parsers.topology import TopologyMatrix

BUS_TOOL = "rocm-smi-showbus"
TOPO_TOOL = "rocm-smi-showtopotype"
SHOWTOPO_TOOL = "rocm-smi-showtopo"
BANNER = re.compile(r"^=+\s*(.*?)\s*=+$")
NUMA_LINE = re.compile(r"^GPU\s*\[?(\d+)\]?\s*:\s*\(Topology\)\s*Numa (Node|Affinity):\s*(-?\d+)$")
TABLES = {"Weight between two GPUs": "weight", "Hops between two GPUs": "hops",
          "Link Type between two GPUs": "link_type", "Access between two GPUs": "access"}
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


def _matrix(tool: str, lines: list[str], what: str) -> TopologyMatrix:
    """The first ``GPU0 GPU1 ...`` matrix in ``lines`` (rows until the first line that is not a GPU row)."""
    header_index = next((i for i, line in enumerate(lines) if re.fullmatch(r"(\s*GPU\d+)+\s*", line)), None)
    if header_index is None:
        fail(tool, f"{what}: no 'GPU0 GPU1 ...' header row")
    devices = tuple(lines[header_index].split())
    links: dict[str, dict[str, str]] = {}
    for line in lines[header_index + 1 :]:
        words = line.split()
        if not words or not re.fullmatch(r"GPU\d+", words[0]):
            continue
        if len(words) != len(devices) + 1:
            fail(tool, f"{what}, {words[0]}: expected {len(devices)} values, found {len(words) - 1}")
        links[words[0]] = dict(zip(devices, words[1:]))
    missing = [device for device in devices if device not in links]
    if missing:
        fail(tool, f"{what}: no row for {', '.join(missing)} (truncated output?)")
    return TopologyMatrix(devices, links, {})


@parser(TOPO_TOOL, "rocm-smi --showtopotype: link type (XGMI, PCIE) of every GPU pair")
def parse_rocm_smi_showtopotype(text: str) -> TopologyMatrix:
    return _matrix(TOPO_TOOL, _content(TOPO_TOOL, text), "link type table")


@dataclass(frozen=True)
class RocmTopology:
    """``rocm-smi --showtopo``: every matrix it printed, by kind, and each GPU's NUMA node and affinity."""

    weight: TopologyMatrix | None
    hops: TopologyMatrix | None
    link_type: TopologyMatrix | None
    access: TopologyMatrix | None
    numa_node: dict[int, int]
    numa_affinity: dict[int, int]


def _sections(lines: list[str]) -> dict[str, list[str]]:
    """The lines under each ``=== <title> ===`` banner, by title."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        banner = BANNER.match(line.strip())
        if banner:
            current = sections.setdefault(banner.group(1), [])
        elif current is not None and line.strip():
            current.append(line)
    return sections


@parser(SHOWTOPO_TOOL, "rocm-smi --showtopo: weight, hops, link type (and access) of every GPU pair, NUMA node per GPU")
def parse_rocm_smi_showtopo(text: str) -> RocmTopology:
    sections = _sections(clean_lines(SHOWTOPO_TOOL, text))
    tables = {key: _matrix(SHOWTOPO_TOOL, sections[title], title) for title, key in TABLES.items() if title in sections}
    if "link_type" not in tables:
        fail(SHOWTOPO_TOOL, "no 'Link Type between two GPUs' table" + (" (only --showtopotype's?)" if not sections else ""))
    numa: dict[str, dict[int, int]] = {"Node": {}, "Affinity": {}}
    for line in sections.get("Numa Nodes", []):
        match = NUMA_LINE.match(line.strip())
        if not match:
            fail(SHOWTOPO_TOOL, f"Numa Nodes: expected 'GPU[<n>] : (Topology) Numa Node|Affinity: <n>', found {line.strip()!r}")
        numa[match.group(2)][int(match.group(1))] = int(match.group(3))
    return RocmTopology(tables.get("weight"), tables.get("hops"), tables["link_type"], tables.get("access"),
                        numa["Node"], numa["Affinity"])
