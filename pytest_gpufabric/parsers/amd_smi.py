"""``amd-smi`` (ROCm 6+, the successor of rocm-smi): ``topology``, ``static``, ``metric``, ``list``, ``firmware``
and ``xgmi`` as text, and ``--json``.

Text layouts:

- ``amd-smi topology`` prints ``<NAME> TABLE:`` blocks (ACCESS, WEIGHT, HOPS, LINK TYPE, NUMA BW, and with
  ``-c -n -d -z`` CACHE COHERANCY, ATOMICS, DMA, BI-DIRECTIONAL), each a matrix of device BDFs, then a Legend.
- ``amd-smi static``, ``metric``, ``list`` and ``firmware`` print one ``GPU: <n>`` block per GPU, with sections
  and ``KEY: value`` lines nested by indentation (``PCIE:`` / ``WIDTH: 16``; ``FW_LIST:`` / ``FW 0:`` /
  ``FW_ID: CP_MEC1``); some releases put a line of one space between the blocks.
- ``amd-smi xgmi`` prints a ``LINK METRIC TABLE:`` of one line per GPU (bdf, bit rate, bandwidth, link type),
  each followed by its ``Read`` and ``Write`` lines: the data exchanged with every GPU of the header (full
  BDFs in some releases, ``05:00.0`` or ``GPU0`` in others); later releases add ``GPU LINK PORT STATUS:`` (U, D
  or X per XGMI port) and ``XGMI LINK STATUS:`` (per GPU pair) tables and a Legend. Where amd-smi prints a value
  as wide as its column (``65535 Gb/s4294967295 Gb/sN/A`` on GPUs without XGMI) the cells are fused and the line
  is refused with its Read/Write lines.

Each is read by the parsing rule: a line the parser does not understand costs only its own facts (a table row
that does not fit its header is refused, never shifted), and an output is refused only when nothing in it is.

``--json`` prints a list with one object per GPU (``"gpu": <n>``). ``topology --json`` came in two layouts:
per-GPU maps keyed ``gpu_<n>`` (``link_accessibility``, ``weight``, ``hops``, ``link_type``, ``numa_bandwidth``)
before ROCm 6.1.3, and a ``links`` list with ``bdf``, ``link_status``, ``num_hops``... since; both are read into
the same tables as the text layout, keyed by BDF where the output gives one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Union

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, line_of
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Header, header_from_names
from pytest_gpufabric.parsers.textutil import parse_float
from pytest_gpufabric.parsers.topology import LABEL
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOPOLOGY_TOOL = "amd-smi-topology"
TOPOLOGY_JSON_TOOL = "amd-smi-topology-json"
STATIC_TOOL = "amd-smi-static"
METRIC_TOOL = "amd-smi-metric"
JSON_TOOL = "amd-smi-json"
LIST_TOOL = "amd-smi-list"
FIRMWARE_TOOL = "amd-smi-firmware"
XGMI_TOOL = "amd-smi-xgmi"

TABLE_TITLE = re.compile(r"^([A-Z][A-Z\- ]*?) TABLE:$")
LEGEND_LINE = re.compile(r"^(.+ = .+|<.+>-<.+>)$")  # "SELF = Current GPU", "T/F = True / False", "<BW from>-<BW to>"
BDF_CELL = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
BDF_SHORT = re.compile(r"^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
GPU_BLOCK = re.compile(r"^GPU: (\d+)$")
KEY_LINE = re.compile(r"^([A-Z0-9_]+(?: \d+)?):(?: (.*))?$")  # "FW 0:" of amd-smi firmware
QUANTITY = re.compile(r"^(-?\d+(?:\.\d+)?) ?(\S+)$")
CELL = re.compile(r"^\S+( \S+)?$")  # "2 KB", "N/A"
# The JSON fields of each table, previous layout then current, and the text table they match.
JSON_TABLES = {"ACCESS": ("link_accessibility", "link_status"), "WEIGHT": ("weight", "weight"),
               "HOPS": ("hops", "num_hops"), "LINK TYPE": ("link_type", "link_type"),
               "NUMA BW": ("numa_bandwidth", "bandwidth")}

Tree = dict[str, Union[str, "Tree"]]


@dataclass(frozen=True)
class AmdTopology:
    """``tables[name][a][b]``: the value printed for the device pair in table ``name`` ("LINK TYPE", "HOPS"...)."""

    devices: tuple[str, ...]
    tables: dict[str, dict[str, dict[str, str]]]

    def value(self, table: str, first: str, second: str) -> str | None:
        return self.tables.get(table, {}).get(first, {}).get(second)

    def pairs(self, table: str = "LINK TYPE") -> tuple[tuple[str, str, str], ...]:
        """Every unordered pair of distinct devices with its value in ``table`` (from either row)."""
        rows = self.tables.get(table, {})
        found = ((a, b, rows.get(a, {}).get(b) or rows.get(b, {}).get(a)) for i, a in enumerate(self.devices)
                 for b in self.devices[i + 1:])
        return tuple((a, b, value) for a, b, value in found if value)


def _table(reading: Reading, title: str, lines: list[Line]) -> tuple[tuple[str, ...], dict[str, dict[str, str]]]:
    """One ``<NAME> TABLE:`` block: its header of BDFs (known) and its rows, each read or refused."""
    if not lines:
        return (), {}
    head, body = lines[0], lines[1:]
    devices = tuple(head.text.split())
    if not all(BDF_CELL.match(cell) for cell in devices):
        for line in lines:
            reading.unread(line, f"{title} TABLE: expected a header of device BDFs", title)
        return (), {}
    reading.known(head)
    header = header_from_names(head, leading=LABEL)
    rows: dict[str, dict[str, str]] = {}
    for line in body:
        with reading.row(line, scope=f"{title} {line.stripped.split()[0]}"):
            cells = header.cells(line)
            label = cells[LABEL]
            if not BDF_CELL.match(label) or label in rows:
                raise Unfit(f"{title} TABLE: expected a new '<bdf>' row label, found {label!r}")
            values = {device: cells[device] for device in devices}
            empty = [device for device, value in values.items() if not value]
            if empty:
                raise Unfit(f"{title} TABLE: no value under {', '.join(empty)}")
            rows[label] = values
    return devices, rows


@parser(TOPOLOGY_TOOL, "amd-smi topology: ACCESS, WEIGHT, HOPS, LINK TYPE, NUMA BW (and -cndz) tables of every GPU pair")
def parse_amd_smi_topology(text: str) -> Parsed[AmdTopology]:
    reading = Reading(TOPOLOGY_TOOL, text)
    refuse_unfinished_line(reading, text)
    blocks: dict[str, list[Line]] = {}
    current: list[Line] | None = None
    for line in reading.content():
        title = TABLE_TITLE.match(line.words)
        if title:
            reading.known(line)
            current = blocks.setdefault(title.group(1), [])
        elif line.words == "Legend:":
            reading.known(line)
            current = None
        elif current is not None:
            current.append(line)
        elif LEGEND_LINE.match(line.words):
            reading.known(line)
    tables: dict[str, dict[str, dict[str, str]]] = {}
    devices: tuple[str, ...] = ()
    for title, lines in blocks.items():
        table_devices, rows = _table(reading, title, lines)
        if not table_devices:
            continue
        if devices and table_devices != devices:
            for line in lines:
                reading.unread(line, f"{title} TABLE: devices differ from the other tables", title)
            continue
        devices, tables[title] = table_devices, rows
    return reading.done(AmdTopology(devices, tables), nothing="no '<NAME> TABLE:' block could be read")


def _load_json(reading: Reading, text: str) -> list[dict[str, Any]] | None:
    """The per-GPU objects of an ``amd-smi ... --json`` output, or None (every line unread) when it is not that."""
    try:
        data = json.loads(text)
    except ValueError as error:
        reason = f"not JSON ({error})"
    else:
        if isinstance(data, list) and data and all(isinstance(item, dict) and "gpu" in item for item in data):
            return data
        reason = "expected a list of per-GPU objects with a 'gpu' key"
    for line in reading.content():
        reading.unread(line, reason)
    return None


def _json_label(item: dict[str, Any]) -> str:
    bdf = item.get("bdf")
    return bdf if isinstance(bdf, str) and BDF_CELL.match(bdf) else f"gpu_{item['gpu']}"


def _json_tables(reading: Reading, data: list[dict[str, Any]]) -> tuple[tuple[str, ...], dict[str, dict[str, dict[str, str]]]]:
    labels = {item["gpu"]: _json_label(item) for item in data}
    tables: dict[str, dict[str, dict[str, str]]] = {}
    for item in data:
        row = labels[item["gpu"]]
        place = line_of(reading, f'"gpu": {item["gpu"]}')
        if isinstance(item.get("links"), list):
            for link in item["links"]:
                if not isinstance(link, dict) or "gpu" not in link:
                    reading.unread(place, f"gpu {item['gpu']}: a link without 'gpu'", row)
                    continue
                column = _json_label(link)
                for table, (_, key) in JSON_TABLES.items():
                    if key in link:
                        tables.setdefault(table, {}).setdefault(row, {})[column] = str(link[key])
            reading.used(place)
            continue
        found = False
        for table, (key, _) in JSON_TABLES.items():
            values = item.get(key)
            if not isinstance(values, dict):
                continue
            for name, value in values.items():
                index = re.fullmatch(r"gpu_(\d+)", name)
                if not index:
                    reading.unread(line_of(reading, f'"{name}"'), f"gpu {item['gpu']}.{key}: unexpected key {name!r}", row)
                    continue
                found = True
                tables.setdefault(table, {}).setdefault(row, {})[labels.get(int(index.group(1)), name)] = str(value)
        if found:
            reading.used(place)
        else:
            reading.unread(place, f"gpu {item['gpu']}: neither 'links' nor per-GPU tables", row)
    return tuple(labels[gpu] for gpu in sorted(labels)), tables


@parser(TOPOLOGY_JSON_TOOL, "amd-smi topology --json (both layouts): the same tables as the text output")
def parse_amd_smi_topology_json(text: str) -> Parsed[AmdTopology]:
    reading = Reading(TOPOLOGY_JSON_TOOL, text)
    data = _load_json(reading, text)
    devices, tables = _json_tables(reading, data) if data is not None else ((), {})
    if data is not None:
        reading.rest_known()
    return reading.done(AmdTopology(devices, tables), nothing="no per-GPU topology object")


def _list_value(lines: list[Line], index: int, value: str) -> tuple[str, int]:
    """A ``[...]`` value wrapped over several lines (``JPEG_ACTIVITY: [0 %, 0 %,`` then ``N/A, N/A]`` indented
    under it): the whole list joined by single spaces, and the index of its last line. ``Unfit`` when the list is
    not closed before the next key (a value cut is never read whole)."""
    key_line = lines[index]
    while not value.endswith("]"):
        index += 1
        if index >= len(lines) or lines[index].indent <= key_line.indent or KEY_LINE.match(lines[index].stripped):
            raise Unfit(f"a list value not closed: {value[:60]!r}")
        value = f"{value} {lines[index].stripped}"
    return value, index


def _tree(reading: Reading) -> dict[int, Tree]:
    """``GPU: <n>`` blocks of indented ``KEY: value`` lines as nested dicts (a key without value opens a level;
    a ``[...]`` value may continue on the lines under it); a line of another form is unread, and a block of
    another device (``CPU: <n>`` of an APU) ends the GPU block before it, its lines unread."""
    gpus: dict[int, Tree] = {}
    stack: list[tuple[int, Tree]] = []
    scope = ""
    lines = reading.content()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.stripped == "...":
            reading.known(line)
            continue
        gpu = GPU_BLOCK.match(line.text)
        if gpu:
            scope = f"GPU{gpu.group(1)}"
            stack = [(0, gpus.setdefault(int(gpu.group(1)), {}))]
            reading.used(line)
            continue
        match = KEY_LINE.match(line.stripped)
        if not line.text[:1].isspace():
            stack, scope = [], ""  # another device's block (CPU: 0) or a line of another form
        if not stack or not match:
            reading.unread(line, "expected 'GPU: <n>' or an indented 'KEY: value' line", scope)
            continue
        while len(stack) > 1 and line.indent <= stack[-1][0]:
            stack.pop()
        key, value = match.group(1), match.group(2)
        if value is None:
            child: Tree = {}
            stack[-1][1][key] = child
            stack.append((line.indent, child))
            reading.used(line)
        elif value.strip().startswith("[") and not value.strip().endswith("]"):
            first = index - 1
            try:
                joined, last = _list_value(lines, first, value.strip())
            except Unfit as exc:
                reading.unread(line, str(exc), scope)
                continue
            stack[-1][1][key] = joined
            for part in lines[first:last + 1]:
                reading.used(part)
            index = last + 1
        else:
            stack[-1][1][key] = value.strip()
            reading.used(line)
    return gpus


def _blocks(tool: str, text: str) -> Parsed[dict[int, Tree]]:
    reading = Reading(tool, text)
    refuse_unfinished_line(reading, text)
    return reading.done(_tree(reading), nothing="no 'GPU: <n>' block")


@parser(STATIC_TOOL, "amd-smi static [--asic|--bus|--vbios|...]: per GPU, the nested KEY: value sections")
def parse_amd_smi_static(text: str) -> Parsed[dict[int, Tree]]:
    return _blocks(STATIC_TOOL, text)


@parser(METRIC_TOOL, "amd-smi metric [--pcie|--power|--clock|...]: per GPU, the nested KEY: value sections")
def parse_amd_smi_metric(text: str) -> Parsed[dict[int, Tree]]:
    return _blocks(METRIC_TOOL, text)


@dataclass(frozen=True)
class AmdGpuListing:
    """One GPU of ``amd-smi list`` (None where the release does not print the field)."""

    gpu: int
    bdf: str | None
    uuid: str | None
    kfd_id: str | None
    node_id: str | None
    partition_id: str | None


LISTED = ("BDF", "UUID", "KFD_ID", "NODE_ID", "PARTITION_ID")


def _listing(gpu: int, fields: Tree) -> AmdGpuListing:
    value = {key: str(fields[key]) for key in LISTED if isinstance(fields.get(key), str)}
    bdf = value.get("BDF")
    return AmdGpuListing(gpu, bdf.lower() if bdf and BDF_CELL.match(bdf) else None, value.get("UUID"),
                         value.get("KFD_ID"), value.get("NODE_ID"), value.get("PARTITION_ID"))


@parser(LIST_TOOL, "amd-smi list: per GPU, its BDF, UUID, KFD_ID, NODE_ID and PARTITION_ID")
def parse_amd_smi_list(text: str) -> Parsed[dict[int, AmdGpuListing]]:
    return _blocks(LIST_TOOL, text).map(lambda gpus: {gpu: _listing(gpu, fields) for gpu, fields in gpus.items()})


def _firmware(fields: Tree) -> dict[str, str]:
    found: dict[str, str] = {}
    listing = fields.get("FW_LIST")
    for entry in listing.values() if isinstance(listing, dict) else ():
        if isinstance(entry, dict) and isinstance(entry.get("FW_ID"), str) and isinstance(entry.get("FW_VERSION"), str):
            found[str(entry["FW_ID"])] = str(entry["FW_VERSION"])
    return found


@parser(FIRMWARE_TOOL, "amd-smi firmware: per GPU, the version of each firmware (FW_ID -> FW_VERSION)")
def parse_amd_smi_firmware(text: str) -> Parsed[dict[int, dict[str, str]]]:
    return _blocks(FIRMWARE_TOOL, text).map(lambda gpus: {gpu: _firmware(fields) for gpu, fields in gpus.items()})


@dataclass(frozen=True)
class XgmiLink:
    """One GPU of ``amd-smi xgmi``'s LINK METRIC TABLE: its link, and the data read from / written to each GPU
    of the header (as printed: ``2 KB``, ``N/A`` for the GPU itself)."""

    gpu: str
    bdf: str
    bit_rate: str
    max_bandwidth: str
    link_type: str
    read: dict[str, str]
    write: dict[str, str]


XGMI_TITLE = "LINK METRIC TABLE:"
PORT_TITLE = "GPU LINK PORT STATUS:"
STATUS_TITLE = "XGMI LINK STATUS:"
XGMI_FIXED = ("bdf", "bit_rate", "max_bandwidth", "link_type")
XGMI_GPU = re.compile(r"^GPU\d+$")
PORT_STATES = {"U", "D", "X"}  # the Legend: Up / Down / Disabled
PEER_STATES = PORT_STATES | {"SELF", "N/A"}


@dataclass(frozen=True)
class AmdXgmi:
    """``amd-smi xgmi``: the LINK METRIC TABLE (per GPU), and in later releases the state of each GPU's XGMI ports
    (``GPU LINK PORT STATUS``: U / D / X per port) and of its link to each GPU (``XGMI LINK STATUS``)."""

    links: dict[str, XgmiLink]
    ports: dict[str, tuple[str, ...]]
    peers: dict[str, dict[str, str]]


def _xgmi_row(reading: Reading, header: Header, peers: tuple[str, ...], line: Line, links: dict[str, XgmiLink],
              last: list[str]) -> None:
    """One line of the metric table: a GPU's own line, or the Read/Write line of the GPU above it."""
    with reading.row(line, scope=line.stripped.split()[0]):
        cells = header.cells(line)
        label = cells[LABEL]
        if XGMI_GPU.match(label):
            last[:] = []  # a refused GPU line leaves its Read/Write lines without a GPU
            fixed = {name: cells[name] for name in XGMI_FIXED}
            if not BDF_SHORT.match(fixed["bdf"]) or not all(fixed.values()) or label in links:
                raise Unfit(f"{label}: expected its bdf, bit_rate, max_bandwidth and link_type")
            if any(cells[peer] for peer in peers):
                raise Unfit(f"{label}: a value under a GPU column on the GPU's own line")
            links[label] = XgmiLink(label, fixed["bdf"].lower(), fixed["bit_rate"], fixed["max_bandwidth"],
                                    fixed["link_type"], {}, {})
            last[:] = [label]
            return
        if label not in ("Read", "Write") or not last or any(cells[name] for name in XGMI_FIXED):
            raise Unfit(f"expected 'GPU<n>' or a 'Read'/'Write' line under a GPU line read, found {label!r}")
        values = {peer: cells[peer] for peer in peers}
        bad = [value for value in values.values() if not value or not CELL.match(value)]
        if bad:
            raise Unfit(f"{label}: expected one value per GPU ('2 KB', 'N/A'), found {bad[0]!r}")
        getattr(links[last[0]], label.lower()).update(values)


def _status_row(reading: Reading, header: Header, peers: tuple[str, ...], line: Line, xgmi: AmdXgmi,
                title: str) -> None:
    """One GPU's line of GPU LINK PORT STATUS (its ports' states) or XGMI LINK STATUS (its link to each GPU)."""
    with reading.row(line, scope=line.stripped.split()[0]):
        cells = header.cells(line)
        label = cells[LABEL]
        if not XGMI_GPU.match(label) or not BDF_SHORT.match(cells["bdf"]):
            raise Unfit(f"expected 'GPU<n> <bdf> ...', found {label!r}")
        if title == PORT_TITLE:
            states = tuple(cells["port_num"].split())
            if not states or not set(states) <= PORT_STATES or label in xgmi.ports:
                raise Unfit(f"{label}: expected one U, D or X per port, found {cells['port_num']!r}")
            xgmi.ports[label] = states
            return
        values = {peer: cells[peer] for peer in peers}
        if not all(value in PEER_STATES for value in values.values()) or label in xgmi.peers:
            raise Unfit(f"{label}: expected U, D, X, SELF or N/A under each GPU, found {list(values.values())}")
        xgmi.peers[label] = values


@parser(XGMI_TOOL, "amd-smi xgmi: per GPU, its XGMI bit rate, bandwidth and link type, data read and written per peer "
                   "GPU; the state of its XGMI ports and of its link to each GPU")
def parse_amd_smi_xgmi(text: str) -> Parsed[AmdXgmi]:
    reading = Reading(XGMI_TOOL, text)
    refuse_unfinished_line(reading, text)
    xgmi = AmdXgmi({}, {}, {})
    title = ""
    header: Header | None = None
    peers: tuple[str, ...] = ()
    last: list[str] = []
    for line in reading.content():
        words = line.words.split()
        if line.words in (XGMI_TITLE, PORT_TITLE, STATUS_TITLE, "Legend:"):
            title, header, last = line.words, None, []
            reading.known(line)
        elif title == "Legend:" and LEGEND_LINE.match(line.words):
            reading.known(line)
        elif title == XGMI_TITLE and tuple(words[:4]) == XGMI_FIXED and all(BDF_SHORT.match(w) or XGMI_GPU.match(w)
                                                                             for w in words[4:]):
            header, peers = header_from_names(line, leading=LABEL), tuple(words[4:])
            reading.known(line)
        elif title == PORT_TITLE and words == ["bdf", "port_num"]:
            header = header_from_names(line, leading=LABEL)
            reading.known(line)
        elif title == STATUS_TITLE and words[:1] == ["bdf"] and words[1:] and all(XGMI_GPU.match(w) for w in words[1:]):
            header, peers = header_from_names(line, leading=LABEL), tuple(words[1:])
            reading.known(line)
        elif header is not None and title == XGMI_TITLE:
            _xgmi_row(reading, header, peers, line, xgmi.links, last)
        elif header is not None:
            _status_row(reading, header, peers, line, xgmi, title)
    return reading.done(xgmi, nothing=f"no '{XGMI_TITLE}' line could be read")


@parser(JSON_TOOL, "amd-smi static|metric|process --json: per GPU, the object amd-smi printed")
def parse_amd_smi_json(text: str) -> Parsed[dict[int, dict[str, Any]]]:
    reading = Reading(JSON_TOOL, text)
    data = _load_json(reading, text)
    gpus: dict[int, dict[str, Any]] = {}
    for item in data or ():
        place = line_of(reading, f'"gpu": {item["gpu"]}')
        if not isinstance(item["gpu"], int) or item["gpu"] in gpus:
            reading.unread(place, f"'gpu' {item['gpu']!r} is not a new GPU index")
            continue
        gpus[item["gpu"]] = {key: value for key, value in item.items() if key != "gpu"}
        reading.used(place)
    if data is not None:
        reading.rest_known()
    return reading.done(gpus, nothing="no per-GPU object")


def quantity(value: Any) -> tuple[float, str] | None:
    """``(number, unit)`` of a text value (``"32 GT/s"``, ``"11 W"``) or a JSON ``{"value", "unit"}``; None for N/A."""
    if isinstance(value, dict) and "value" in value:
        number = value["value"]
        return (float(number), str(value.get("unit", ""))) if isinstance(number, (int, float)) else None
    match = QUANTITY.match(str(value).strip())
    return (parse_float(METRIC_TOOL, match.group(1), "value"), match.group(2)) if match else None


def pcie_link(metric: dict[int, Tree], gpu: int) -> tuple[float, int] | None:
    """(speed in GT/s, width) of ``gpu`` from ``amd-smi metric --pcie``; None when not reported."""
    section = metric.get(gpu, {}).get("PCIE")
    if not isinstance(section, dict):
        return None
    speed, width = quantity(section.get("SPEED")), section.get("WIDTH")
    if speed is None or speed[1] != "GT/s" or not isinstance(width, str) or not width.isdigit():
        return None
    return speed[0], int(width)
