"""``nvidia-smi``: ``--query-gpu ... --format=csv``, ``topo -m``, ``nvlink -s`` and the Fabric section of ``-q``.

``topo -m`` as drivers print it (and as people paste it): a column header of device names, tab-separated or
with the tabs expanded (8-column stops), then the extra columns ``CPU Affinity``, ``NUMA Affinity`` and
``GPU NUMA ID`` (each in some driver eras only); one row per device; a ``Legend`` (``SOC`` in old drivers);
since drivers of 2022 a ``NIC Legend`` naming each ``NIC<n>`` (``NIC0: mlx5_0``), where older drivers put the
RDMA device names in the header themselves. Lines before the header (a prompt, a fence, a note) and lines the
parser does not understand cost only their own facts; a row that does not fit the header is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable
from typing import Optional

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Column, Header, header_from_names
from pytest_gpufabric.parsers.topology import LABEL, TopologyMatrix, read_rows
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

QUERY_TOOL = "nvidia-smi-query-gpu"
TOPO_TOOL = "nvidia-smi-topo"
NVLINK_TOOL = "nvidia-smi-nvlink"
FABRIC_TOOL = "nvidia-smi-q-fabric"

# A device of the matrix: GPU<n>, NIC<n> (named by the NIC legend), or an RDMA device named in older headers.
DEVICE = re.compile(r"^(GPU\d+|NIC\d+|(mlx\d+|bnxt_re|ionic|irdma|i40iw|hns|qedr|erdma|efa|rxe)_?\w*)$")
EXTRA_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
# Connection types of the legend (SOC: drivers before 384 for SYS); X is the device itself.
LINK_TYPE = re.compile(r"^(X|SYS|SOC|NODE|PHB|PXB|PIX|PSB|NV\d+)$")
# Drivers of the 550 series print some cells of a wide matrix without the tab after them when the cell fills
# its column (``NODENODE``, ``NODEPXB`` in a row, ``NIC8NIC9`` in the header; sgl-project/sglang#14092,
# vllm-project/vllm#13855). The legend's words and the device names split such a word in one way only.
LINK_WORD = re.compile(r"X|SYS|SOC|NODE|PHB|PXB|PIX|PSB|NV\d+")
FUSED_LINKS = re.compile(r"^(?:X|SYS|SOC|NODE|PHB|PXB|PIX|PSB|NV\d+){2,}$")
FUSED_DEVICES = re.compile(r"^(?:(?:GPU|NIC)\d+){2,}$")
CPU_LIST = re.compile(r"^(N/A|\d+(-\d+)?(,\d+(-\d+)?)*)$")  # also NUMA node lists of Grace systems
LEGEND_TITLE = re.compile(r"^(NIC )?Legend:$")
LEGEND_ENTRY = re.compile(r"^(\S+)\s+=\s+\S.*$")  # "X    = Self", "NV#  = Connection traversing ..."
NIC_ENTRY = re.compile(r"^(NIC\d+):\s*(\S+)$")
KNOWN_BEFORE = re.compile(r"^(```\w*|\$.*nvidia-smi topo.*|.*[$#➜]\s*(~\s+)?nvidia-smi topo.*|nvidia-smi topo.*|(NVIDIA|GPU) Topology:?)$")
# Drivers that cap the NIC columns say so before the header ("18 NICs found, only displaying 16"): the matrix
# then names fewer NICs than the node has, which the NIC legend shows.
NICS_CAPPED = re.compile(r"^\d+ NICs? found,? only displaying \d+\b.*$", re.IGNORECASE)


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


QUERY_FIELD = re.compile(r"^[a-z_][a-z0-9_.]*$")


@parser(QUERY_TOOL, "nvidia-smi --query-gpu=<fields> --format=csv: one row of named values per GPU")
def parse_nvidia_smi_query(text: str) -> Parsed[tuple[GpuQueryRow, ...]]:
    reading = Reading(QUERY_TOOL, text)
    header: list[str] | None = None
    rows: list[GpuQueryRow] = []
    for line in reading.content():
        names = [name.strip().split(" [")[0] for name in line.stripped.split(",")]
        if header is None:
            if all(QUERY_FIELD.match(name) for name in names):
                header = names
                reading.known(line)
            continue
        with reading.row(line):
            cells = [cell.strip() for cell in line.stripped.split(",")]
            if len(cells) != len(header):
                raise Unfit(f"expected {len(header)} values, found {len(cells)}")
            values = dict(zip(header, cells))
            if "pci.bus_id" in values and not is_bdf(values["pci.bus_id"]):
                raise Unfit(f"pci.bus_id {values['pci.bus_id']!r} is not a PCI address")
            rows.append(GpuQueryRow(values))
    return reading.done(tuple(rows), nothing="no CSV header of query fields and GPU rows (csv format with header)")


def _header_devices(line: Line) -> list[str]:
    """The device names a column header starts with (``GPU0 GPU1 ... NIC0``), [] for any other line: after the
    names, every column of a header is a title (``CPU Affinity``...), where a row holds ``X`` or a link type
    after its label. A header is indented by the column of row labels; a paste that lost that first tab starts
    with ``GPU0`` like a row, and is told from one by the word after it."""
    words = [part for word in line.words.split(" ") for part in _split_devices(word)]
    devices: list[str] = []
    for word in words:
        if not DEVICE.match(word):
            break
        devices.append(word)
    rest = " ".join(words[len(devices):])
    if not devices or not devices[0].startswith("GPU") or rest and not rest.startswith(EXTRA_COLUMNS):
        return []
    if line.text[:1] not in (" ", "\t") and len(devices) == 1 and not rest:
        return []  # a lone "GPU0" (a one-GPU row cut after its label) is no header
    return devices


def _split_devices(word: str) -> list[str]:
    """``NIC8NIC9`` (a header word the driver printed without its tab) as the two device names it is."""
    return re.findall(r"(?:GPU|NIC)\d+", word) if FUSED_DEVICES.match(word) else [word]


def _split_links(word: str) -> list[str]:
    """``NODENODE`` (cells the driver printed without the tab between them) as the legend words it is made of;
    any other word as it is."""
    return LINK_WORD.findall(word) if FUSED_LINKS.match(word) else [word]


EXTRAS = "extras"  # the columns after the devices, read as one cell (see _matrix_header)


def _matrix_header(line: Line, devices: tuple[str, ...]) -> tuple[Header, tuple[str, ...]]:
    """The device columns by their header positions, and the extra columns as one open column.

    Drivers separate the cells with tabs, so in the original and in any tab-expanded copy a device cell
    stands at its header's 8-column stop (device names are shorter than 8), but an extra value stands at the
    tab stop after the previous value, not under its title (``CPU Affinity`` is 12 wide; a 15-character CPU
    list touches the NUMA node after it: ``112-127,240-255 7``). The extra values hold no spaces, so they are
    read in order as the words of that cell, and a GPU row must give one per title (a missing one refuses the
    row: which one is missing cannot be told)."""
    full = header_from_names(line, EXTRA_COLUMNS, leading=LABEL)
    titles = tuple(name for name in full.names if name in EXTRA_COLUMNS)
    columns = [column for column in full.columns if column.name not in titles]
    first = next((column for column in full.columns if column.name in titles), None)
    if first is not None:
        columns.append(Column(EXTRAS, first.start, first.end))
    return Header(tuple(columns), open_last=True), titles


def _check_row(label: str, cells: dict[str, str], devices: tuple[str, ...]) -> dict[str, str]:
    """``cells`` when the row's device cells are what ``topo -m`` prints: a link type under every device and
    ``X`` under the row's own device only (the legend's "Self"); ``Unfit`` otherwise. A row whose cells slid
    by a column puts its ``X`` under another device: this is how a shift is told from a reading."""
    if label not in devices:
        raise Unfit(f"row label {label!r} is not a device of the header")
    for device in devices:
        value = cells.get(device, "")
        if not LINK_TYPE.match(value):
            raise Unfit(f"{device}: {value!r} is not a connection type of the legend")
        if (value == "X") != (device == label):
            raise Unfit(f"{device}: {value!r} where the row of {label} has its 'X' only under {label}")
    return cells


def _extra_words(words: list[str], titles: tuple[str, ...]) -> dict[str, str]:
    """The extra values of a row read in order: one per title on a GPU row; none on a NIC row."""
    if not words:
        return {}
    if len(words) != len(titles):
        raise Unfit(f"expected {len(titles)} values under {', '.join(titles)}, found {len(words)}: {' '.join(words)!r}")
    return dict(zip(titles, words))


def _tab_fields(line: Line, devices: tuple[str, ...], titles: tuple[str, ...]) -> dict[str, str]:
    """A row as the driver printed it, one tab between cells (the original output, not an expanded copy):
    cell n is field n, so an empty cell is seen as empty (``0-35\t0`` and ``\t1`` on GB200, where some GPUs
    have no CPU affinity). Drivers put an empty field before ``GPU NUMA ID`` (``0\t\tN/A``), which is
    dropped, and a NIC row ends in empty fields; an empty field anywhere else is not the driver's layout
    (a copy whose spaces were turned back into tabs) and refuses this way of reading the row."""
    fields = line.text.split("\t")
    values: list[str] = []
    rest = 1
    while rest < len(fields) and len(values) < len(devices):
        values += _split_links(fields[rest].strip())
        rest += 1
    if len(values) != len(devices):
        raise Unfit(f"{len(values)} tab-separated cells for the {len(devices)} devices of the header")
    extras = [field.strip() for field in fields[rest:]]
    while extras and not extras[-1]:
        extras.pop()
    if len(extras) == len(titles) + 1 and not extras[-2]:
        del extras[-2]
    if len(extras) > len(titles) or "" in extras[1:]:
        raise Unfit(f"tab-separated values {extras} do not fit the columns {', '.join(titles)}")
    cells = {LABEL: fields[0].strip(), **dict(zip(devices, values))}
    cells.update(zip(titles, extras))
    return cells


TAB_SEPARATED = re.compile(r"^[^ \t]+(\t( X ?|[^ \t]*))+$")  # cells between single tabs, " X " for the device itself


def _row_cells(header: Header, devices: tuple[str, ...], titles: tuple[str, ...]) -> Callable[[Line], dict[str, str]]:
    """How a row of the matrix is read: by its tab fields when it has the driver's layout (one tab between
    cells); otherwise by the header's positions, and where a paste moved the header or the rows (an indented
    paste, a header that lost its first tab), by its words in order. Each way must account for every word of the
    row and put the row's ``X`` under its own device, so a shifted or fused cell refuses the row in all of them;
    the reason given is the one of the header's positions."""

    def by_tabs(line: Line) -> dict[str, str]:
        if not TAB_SEPARATED.match(line.text):
            raise Unfit("not the driver's tab-separated layout")
        found = _tab_fields(line, devices, titles)
        return _check_row(found[LABEL], found, devices)

    def by_position(line: Line) -> dict[str, str]:
        placed = header.cells(line)
        found = {name: value for name, value in placed.items() if name != EXTRAS}
        found.update(_extra_words(placed.get(EXTRAS, "").split(), titles))
        return _check_row(found.get(LABEL, ""), found, devices)

    def by_words(line: Line) -> dict[str, str]:
        first, *others = line.stripped.split()
        words = [first] + [part for word in others for part in _split_links(word)]
        values = words[1:1 + len(devices)]
        if len(values) != len(devices):
            raise Unfit(f"{len(values)} cells for the {len(devices)} devices of the header")
        found = _check_row(words[0], {LABEL: words[0], **dict(zip(devices, values))}, devices)
        return {**found, **_extra_words(words[1 + len(devices):], titles)}

    def cells(line: Line) -> dict[str, str]:
        reasons = []
        for way in (by_tabs, by_position, by_words):
            try:
                return way(line)
            except Unfit as exc:
                reasons.append(exc)
        raise reasons[1]

    return cells


def _cell_ok(column: str, value: str) -> None:
    if column in EXTRA_COLUMNS:
        if not CPU_LIST.match(value):
            raise Unfit(f"{column}: expected a CPU or NUMA list or N/A, found {value!r}")
    elif not LINK_TYPE.match(value):
        raise Unfit(f"{column}: {value!r} is not a connection type of the legend")


@parser(TOPO_TOOL, "nvidia-smi topo -m: connection type (NV<n>, PIX, PXB, PHB, NODE, SYS) of every device pair, NIC legend")
def parse_nvidia_smi_topo(text: str) -> Parsed[TopologyMatrix]:
    reading = Reading(TOPO_TOOL, text)
    refuse_unfinished_line(reading, text)
    content = reading.content()
    start = next((index for index, line in enumerate(content) if _header_devices(line)), None)
    if start is None:
        return reading.done(TopologyMatrix((), {}, {}), nothing="no column header of GPU/NIC names")
    for line in content[:start]:
        if KNOWN_BEFORE.match(line.stripped) or NICS_CAPPED.match(line.words):
            reading.known(line)
    header_line = content[start]
    devices = tuple(_header_devices(header_line))
    header, titles = _matrix_header(header_line, devices)
    reading.known(header_line)
    body, legend = [], []
    for line in content[start + 1:]:
        (legend if legend or LEGEND_TITLE.match(line.stripped) else body).append(line)
    links: dict[str, dict[str, str]] = {}
    extra: dict[str, dict[str, str]] = {}
    rows = [line for line in body if line.stripped.split()[0] in devices]  # indented by some pastes
    read_rows(reading, header, rows, devices, _cell_ok, links, extra, cells_of=_row_cells(header, devices, titles))
    nics: dict[str, str] = {}
    for line in legend:
        nic = NIC_ENTRY.match(line.stripped)
        if nic and nic.group(1) in devices and nic.group(1) not in nics:
            nics[nic.group(1)] = nic.group(2)
            reading.used(line)
        elif LEGEND_TITLE.match(line.stripped) or LEGEND_ENTRY.match(line.stripped) or line.stripped.startswith("```"):
            reading.known(line)
    return reading.done(TopologyMatrix(devices, links, extra, nics), nothing="no row of the matrix could be read")


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


NVLINK_GPU = re.compile(r"^GPU (\d+): (.+?)(?: \(UUID: (\S+)\))?$")
NVLINK_LINK = re.compile(r"^Link (\d+): (.+)$")
NVLINK_SPEED = re.compile(r"^([\d.]+) GB/s$")


@parser(NVLINK_TOOL, "nvidia-smi nvlink -s: per GPU, the speed of each NVLink (None when inactive)")
def parse_nvidia_smi_nvlink(text: str) -> Parsed[tuple[GpuNvlinks, ...]]:
    reading = Reading(NVLINK_TOOL, text)
    gpus: list[GpuNvlinks] = []
    for line in reading.content():
        gpu = NVLINK_GPU.match(line.stripped)
        link = NVLINK_LINK.match(line.stripped)
        if gpu:
            with reading.row(line, scope=f"GPU{gpu.group(1)}"):
                gpus.append(GpuNvlinks(integer(gpu.group(1), "GPU index"), gpu.group(2), gpu.group(3), {}))
        elif link and gpus:
            with reading.row(line, scope=f"GPU{gpus[-1].index}"):
                value = link.group(2).strip()
                speed = None
                if not value.startswith("<inactive>"):
                    number = NVLINK_SPEED.match(value)
                    if not number:
                        raise Unfit(f"GPU {gpus[-1].index} link {link.group(1)}: {value!r} is not '<n> GB/s' or <inactive>")
                    speed = decimal(number.group(1), "link speed")
                gpus[-1].links[integer(link.group(1), "link number")] = speed
        else:
            reading.unread(line, "expected 'GPU <n>: <name>' or 'Link <n>: <speed>'")
    return reading.done(tuple(gpus), nothing="no 'GPU <n>:' line")


@dataclass(frozen=True)
class GpuFabric:
    """The Fabric section of one GPU in ``nvidia-smi -q`` (None where a field is missing)."""

    bus_id: Optional[str]
    state: Optional[str]  # "Completed", "In Progress", "N/A"
    status: Optional[str]  # "Success", ...


GPU_SECTION = re.compile(r"^GPU ([0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])$")


@parser(FABRIC_TOOL, "nvidia-smi -q: Fabric State and Status of every GPU")
def parse_nvidia_smi_fabric(text: str) -> Parsed[tuple[GpuFabric, ...]]:
    """``-q`` prints dozens of sections: the lines outside the GPU and Fabric lines are known (another subject)."""
    reading = Reading(FABRIC_TOOL, text)
    fabrics: list[GpuFabric] = []
    bus: Optional[str] = None
    lines = reading.content()
    index = 0
    while index < len(lines):
        line = lines[index]
        gpu = GPU_SECTION.match(line.stripped)
        if gpu:
            bus = normalize_bdf(gpu.group(1))
            reading.known(line)
        elif line.stripped == "Fabric":
            reading.used(line)
            fields: dict[str, str] = {}
            index += 1
            while index < len(lines) and lines[index].indent > line.indent:
                key, sep, value = lines[index].text.partition(":")
                if sep:
                    fields.setdefault(key.strip(), value.strip())
                    reading.used(lines[index])
                index += 1
            fabrics.append(GpuFabric(bus, fields.get("State"), fields.get("Status")))
            continue
        else:
            reading.known(line)
        index += 1
    return reading.done(tuple(fabrics), nothing="no 'Fabric' section")
