"""``rocm-smi --showbus`` (GPU PCI addresses), ``--showtopotype`` (GPU link types) and ``--showtopo`` (all tables).

``--showtopo`` prints, each under its ``=== <title> ===`` banner, the weight, hops and link type matrices, an
access matrix in some releases, and the NUMA node and affinity of each GPU (``--showtoponuma``: that section
alone); warnings (``WARNING: AMD GPU device(s) is/are in a low-power state``) may come before them. A matrix's
diagonal is ``0`` in most releases, ``X`` or empty in others. GPU lines read ``GPU[0]  : <field>: <value>``
(``GPU 0 :`` in some releases). ``rocm-smi -a`` prints the PCI bus among many other fields: those are another
subject, known and not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import header_from_names
from pytest_gpufabric.parsers.topology import LABEL, TopologyMatrix, read_rows
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

BUS_TOOL = "rocm-smi-showbus"
TOPO_TOOL = "rocm-smi-showtopotype"
SHOWTOPO_TOOL = "rocm-smi-showtopo"
BANNER = re.compile(r"^=+\s*(.*?)\s*=+$")
GPU_FIELD = re.compile(r"^GPU\s*\[?(\d+)\]?\s*:\s*(.*?)\s*:\s*(.*?)\s*$")
NUMA_FIELD = re.compile(r"^\(Topology\)\s*Numa (Node|Affinity)$")
TABLES = {"Weight between two GPUs": "weight", "Hops between two GPUs": "hops",
          "Link Type between two GPUs": "link_type", "Access between two GPUs": "access"}
MATRIX_HEADER = re.compile(r"^\s+(GPU\d+\s*)+$")
NUMBER_OR_NA = re.compile(r"^(\d+|N/A)$")
WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")  # XGMI, PCIE, N/A-free words; access: True/False
KNOWN_LINE = re.compile(r"^(WARNING|ERROR|Warning)\b.*|^No KFD PIDs currently running$|^KFD process information:.*$")


@parser(BUS_TOOL, "rocm-smi --showbus: GPU index -> PCI address")
def parse_rocm_smi_showbus(text: str) -> Parsed[dict[int, str]]:
    reading = Reading(BUS_TOOL, text)
    refuse_unfinished_line(reading, text)
    buses: dict[int, str] = {}
    for line in reading.content():
        field = GPU_FIELD.match(line.words)
        if BANNER.match(line.words) or KNOWN_LINE.match(line.words):
            reading.known(line)
        elif field and field.group(2) == "PCI Bus":
            index, bus = int(field.group(1)), field.group(3)
            with reading.row(line, scope=f"GPU{index}"):
                if not is_bdf(bus):
                    raise Unfit(f"GPU[{index}]: {bus!r} is not a PCI address")
                if index in buses:
                    raise Unfit(f"GPU[{index}] listed twice")
                buses[index] = normalize_bdf(bus)
        elif field:
            reading.known(line)  # another field of the GPU (rocm-smi -a)
    return reading.done(buses, nothing="no 'GPU[<n>] : PCI Bus:' line")


def _cell_ok(kind: str) -> object:
    def check(column: str, value: str) -> None:
        if value in ("0", "X"):
            return  # the diagonal in most releases
        if kind in ("weight", "hops") and not NUMBER_OR_NA.match(value):
            raise Unfit(f"{column}: expected a number or N/A, found {value!r}")
        if kind not in ("weight", "hops") and not (WORD.match(value) or value == "N/A"):
            raise Unfit(f"{column}: expected a word such as XGMI or PCIE, found {value!r}")

    return check


def _matrix(reading: Reading, lines: list[Line], kind: str) -> TopologyMatrix | None:
    """The ``GPU0 GPU1 ...`` matrix among ``lines``: its header becomes known, its rows are read or refused."""
    header_line = next((line for line in lines if MATRIX_HEADER.match(line.text)), None)
    if header_line is None:
        return None
    reading.known(header_line)
    devices = tuple(header_line.text.split())
    header = header_from_names(header_line, leading=LABEL)
    links: dict[str, dict[str, str]] = {}
    rows = [line for line in lines if line.number > header_line.number and line.words.startswith("GPU")
            and not GPU_FIELD.match(line.words)]
    read_rows(reading, header, rows, devices, _cell_ok(kind), links)  # type: ignore[arg-type]
    return TopologyMatrix(devices, links, {})


@parser(TOPO_TOOL, "rocm-smi --showtopotype: link type (XGMI, PCIE) of every GPU pair")
def parse_rocm_smi_showtopotype(text: str) -> Parsed[TopologyMatrix]:
    reading = Reading(TOPO_TOOL, text)
    refuse_unfinished_line(reading, text)
    for line in reading.content():
        if BANNER.match(line.words) or KNOWN_LINE.match(line.words):
            reading.known(line)
    matrix = _matrix(reading, reading.content(), "link_type")
    return reading.done(matrix or TopologyMatrix((), {}, {}), nothing="no 'GPU0 GPU1 ...' link type table")


@dataclass(frozen=True)
class RocmTopology:
    """``rocm-smi --showtopo``: every matrix it printed, by kind, and each GPU's NUMA node and affinity."""

    weight: TopologyMatrix | None
    hops: TopologyMatrix | None
    link_type: TopologyMatrix | None
    access: TopologyMatrix | None
    numa_node: dict[int, int]
    numa_affinity: dict[int, int]


def _sections(reading: Reading) -> dict[str, list[Line]]:
    """The lines under each ``=== <title> ===`` banner, by title (banners and warnings known)."""
    sections: dict[str, list[Line]] = {}
    current: list[Line] | None = None
    for line in reading.content():
        banner = BANNER.match(line.words)
        if banner:
            reading.known(line)
            current = sections.setdefault(banner.group(1), [])
        elif KNOWN_LINE.match(line.words):
            reading.known(line)
        elif current is not None:
            current.append(line)
    return sections


@parser(SHOWTOPO_TOOL, "rocm-smi --showtopo: weight, hops, link type (and access) of every GPU pair, NUMA node per GPU")
def parse_rocm_smi_showtopo(text: str) -> Parsed[RocmTopology]:
    reading = Reading(SHOWTOPO_TOOL, text)
    refuse_unfinished_line(reading, text)
    sections = _sections(reading)
    tables = {key: _matrix(reading, sections[title], key) for title, key in TABLES.items() if title in sections}
    numa: dict[str, dict[int, int]] = {"Node": {}, "Affinity": {}}
    for line in sections.get("Numa Nodes", []):
        if reading.outcome(line) is not None:
            continue
        field = GPU_FIELD.match(line.words)
        kind = NUMA_FIELD.match(field.group(2)) if field else None
        if not field or not kind:
            reading.unread(line, "expected 'GPU[<n>] : (Topology) Numa Node|Affinity: <n>'", "Numa Nodes")
            continue
        with reading.row(line, scope=f"GPU{field.group(1)}"):
            value = field.group(3)
            numa[kind.group(1)][int(field.group(1))] = -1 if value == "-1" else integer(value, f"Numa {kind.group(1)}")
    topology = RocmTopology(tables.get("weight"), tables.get("hops"), tables.get("link_type"), tables.get("access"),
                            numa["Node"], numa["Affinity"])
    return reading.done(topology, nothing="no GPU matrix or Numa Nodes line")
