"""``nvidia-smi``: ``--query-gpu ... --format=csv``, ``topo -m``, ``nvlink -s`` and the Fabric section of ``-q``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_float, parse_int
from pytest_gpufabric.parsers.topology import TopologyMatrix

QUERY_TOOL = "nvidia-smi-query-gpu"
TOPO_TOOL = "nvidia-smi-topo"
NVLINK_TOOL = "nvidia-smi-nvlink"
FABRIC_TOOL = "nvidia-smi-q-fabric"

DEVICE_COLUMN = re.compile(r"^(GPU\d+|NIC\d+|mlx\d+_\d+)$")
EXTRA_COLUMN = re.compile(r"^(CPU Affinity|NUMA Affinity|GPU NUMA ID)$")


@dataclass(frozen=True)
class GpuQueryRow:
    """One CSV row of ``--query-gpu``: field name (as in the header, e.g. ``pci.bus_id``) -> value."""

    values: dict[str, str]

    @property
    def index(self) -> Optional[int]:
        raw = self.values.get("index")
        return int(raw) if raw is not None and raw.isdigit() else None

    @property
    def bus_id(self) -> Optional[str]:
        """``pci.bus_id`` as a normalized ``dddd:bb:dd.f`` address."""
        raw = self.values.get("pci.bus_id")
        return normalize_bdf(raw) if raw and is_bdf(raw) else None


@parser(QUERY_TOOL, "nvidia-smi --query-gpu=<fields> --format=csv: one row of named values per GPU")
def parse_nvidia_smi_query(text: str) -> tuple[GpuQueryRow, ...]:
    lines = [line for line in clean_lines(QUERY_TOOL, text) if line.strip()]
    header = [name.strip().split(" [")[0] for name in lines[0].split(",")]
    if not all(re.fullmatch(r"[a-z_][a-z0-9_.]*", name) for name in header):
        fail(QUERY_TOOL, f"expected a CSV header of query fields (csv format with header), found {lines[0].strip()!r}")
    rows = []
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != len(header):
            fail(QUERY_TOOL, f"expected {len(header)} values, found {len(cells)} in {line.strip()!r}")
        rows.append(GpuQueryRow(dict(zip(header, cells))))
    if not rows:
        fail(QUERY_TOOL, "header without GPU rows")
    bus = [row.values["pci.bus_id"] for row in rows if "pci.bus_id" in row.values]
    bad = [value for value in bus if not is_bdf(value)]
    if bad:
        fail(QUERY_TOOL, f"pci.bus_id {bad[0]!r} is not a PCI address")
    return tuple(rows)


def _split(line: str) -> list[str]:
    """Cells of a topo -m row: tab-separated, or separated by two or more spaces in pasted copies."""
    cells = line.split("\t") if "\t" in line else re.split(r"\s{2,}", line)
    return [cell.strip() for cell in cells]


def _header_cells(line: str) -> list[str]:
    cells = _split(line)
    while cells and not cells[0]:
        cells.pop(0)
    return cells


def _header_devices(line: str) -> list[str]:
    """The device names a column header starts with (``GPU0 GPU1 ... NIC0``); [] for any other line.

    In a header every cell after the names is a column title (``CPU Affinity``...), where a row holds link
    types (``X``, ``NV18``), so a row or a title, prompt or fence line before the table (``NVIDIA Topology:``,
    ``$ nvidia-smi topo -m``, a Markdown fence) is not taken for the header.
    """
    cells = _header_cells(line)
    devices: list[str] = []
    for cell in cells:
        if not DEVICE_COLUMN.match(cell):
            break
        devices.append(cell)
    rest = cells[len(devices):len(devices) + 1]
    if not devices or not devices[0].startswith("GPU") or rest and not EXTRA_COLUMN.match(rest[0]):
        return []
    return devices


@parser(TOPO_TOOL, "nvidia-smi topo -m: connection type (NV<n>, PIX, PXB, PHB, NODE, SYS) of every device pair")
def parse_nvidia_smi_topo(text: str) -> TopologyMatrix:
    lines = [line for line in clean_lines(TOPO_TOOL, text) if line.strip()]
    start = next((index for index, line in enumerate(lines) if _header_devices(line)), None)
    if start is None:
        fail(TOPO_TOOL, f"no column header of GPU/NIC names (first line {lines[0].strip()[:60]!r})")
    devices = _header_devices(lines[start])
    others = [cell for cell in _header_cells(lines[start])[len(devices) :] if cell]
    links: dict[str, dict[str, str]] = {}
    extra: dict[str, dict[str, str]] = {}
    for line in lines[start + 1:]:
        cells = _split(line)
        if not cells or not DEVICE_COLUMN.match(cells[0]):
            if cells and cells[0].startswith("Legend"):
                break
            continue
        values = cells[1:]
        if len(values) < len(devices):
            fail(TOPO_TOOL, f"{cells[0]}: expected {len(devices)} link types, found {len(values)}")
        links[cells[0]] = dict(zip(devices, values[: len(devices)]))
        extra[cells[0]] = dict(zip(others, [value for value in values[len(devices) :] if value]))
    missing = [device for device in devices if device not in links]
    if missing:
        fail(TOPO_TOOL, f"no row for {', '.join(missing)} (truncated output?)")
    return TopologyMatrix(tuple(devices), links, extra)


@dataclass(frozen=True)
class GpuNvlinks:
    """``nvlink -s`` of one GPU: link number -> speed in GB/s, None for an inactive link."""

    index: int
    name: str
    uuid: Optional[str]
    links: dict[int, Optional[float]]

    @property
    def active_links(self) -> tuple[int, ...]:
        return tuple(number for number, speed in self.links.items() if speed is not None)


@parser(NVLINK_TOOL, "nvidia-smi nvlink -s: per GPU, the speed of each NVLink (None when inactive)")
def parse_nvidia_smi_nvlink(text: str) -> tuple[GpuNvlinks, ...]:
    gpus: list[GpuNvlinks] = []
    for line in clean_lines(NVLINK_TOOL, text):
        stripped = line.strip()
        if not stripped:
            continue
        gpu = re.match(r"^GPU (\d+): (.+?)(?: \(UUID: (\S+)\))?$", stripped)
        link = re.match(r"^Link (\d+): (.+)$", stripped)
        if gpu:
            gpus.append(GpuNvlinks(int(gpu.group(1)), gpu.group(2), gpu.group(3), {}))
        elif link and gpus:
            value = link.group(2).strip()
            speed = None
            if not value.startswith("<inactive>"):
                number = re.fullmatch(r"([\d.]+) GB/s", value)
                if not number:
                    fail(NVLINK_TOOL, f"GPU {gpus[-1].index} link {link.group(1)}: {value!r} is not '<n> GB/s' or <inactive>")
                speed = parse_float(NVLINK_TOOL, number.group(1), "link speed")
            gpus[-1].links[parse_int(NVLINK_TOOL, link.group(1), "link number")] = speed
        else:
            fail(NVLINK_TOOL, f"expected 'GPU <n>: <name>' or 'Link <n>: <speed>', found {stripped!r}")
    if not gpus:
        fail(NVLINK_TOOL, "no 'GPU <n>:' line")
    return tuple(gpus)


@dataclass(frozen=True)
class GpuFabric:
    """The Fabric section of one GPU in ``nvidia-smi -q`` (None where a field is missing)."""

    bus_id: Optional[str]
    state: Optional[str]  # "Completed", "In Progress", "N/A"
    status: Optional[str]  # "Success", ...


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@parser(FABRIC_TOOL, "nvidia-smi -q: Fabric State and Status of every GPU")
def parse_nvidia_smi_fabric(text: str) -> tuple[GpuFabric, ...]:
    lines = clean_lines(FABRIC_TOOL, text)
    fabrics: list[GpuFabric] = []
    bus: Optional[str] = None
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        gpu = re.fullmatch(r"GPU ([0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])", stripped)
        if gpu:
            bus = normalize_bdf(gpu.group(1))
        elif stripped == "Fabric":
            level = _indent(lines[index])
            fields: dict[str, str] = {}
            index += 1
            while index < len(lines) and (not lines[index].strip() or _indent(lines[index]) > level):
                key, sep, value = lines[index].partition(":")
                if sep:
                    fields.setdefault(key.strip(), value.strip())
                index += 1
            fabrics.append(GpuFabric(bus, fields.get("State"), fields.get("Status")))
            continue
        index += 1
    if not fabrics:
        fail(FABRIC_TOOL, "no 'Fabric' section")
    return tuple(fabrics)
