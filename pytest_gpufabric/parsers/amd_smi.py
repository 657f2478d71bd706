"""``amd-smi`` (ROCm 6+, the successor of rocm-smi): ``topology``, ``static`` and ``metric``, as text and ``--json``.

Text layouts:

- ``amd-smi topology`` prints ``<NAME> TABLE:`` blocks (ACCESS, WEIGHT, HOPS, LINK TYPE, NUMA BW, and with
  ``-c -n -d -z`` CACHE COHERANCY, ATOMICS, DMA, BI-DIRECTIONAL), each a matrix of device BDFs, then a Legend.
- ``amd-smi static`` and ``amd-smi metric`` print one ``GPU: <n>`` block per GPU, with sections and
  ``KEY: value`` lines nested by indentation (``PCIE:`` / ``WIDTH: 16`` / ``SPEED: 32 GT/s``).

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

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, clean_text, fail, parse_float

TOPOLOGY_TOOL = "amd-smi-topology"
TOPOLOGY_JSON_TOOL = "amd-smi-topology-json"
STATIC_TOOL = "amd-smi-static"
METRIC_TOOL = "amd-smi-metric"
JSON_TOOL = "amd-smi-json"

TABLE_TITLE = re.compile(r"^([A-Z][A-Z\- ]*?) TABLE:$")
BDF_CELL = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
GPU_BLOCK = re.compile(r"^GPU: (\d+)$")
KEY_LINE = re.compile(r"^([A-Z0-9_]+):(?: (.*))?$")
QUANTITY = re.compile(r"^(-?\d+(?:\.\d+)?) ?(\S+)$")
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
        """Every unordered pair of distinct devices with its value in ``table``."""
        rows = self.tables.get(table, {})
        return tuple((a, b, rows[a][b]) for i, a in enumerate(self.devices) for b in self.devices[i + 1:]
                     if b in rows.get(a, {}))


def _table(title: str, lines: list[str]) -> tuple[tuple[str, ...], dict[str, dict[str, str]]]:
    if not lines:
        fail(TOPOLOGY_TOOL, f"{title} TABLE: no column header")
    devices = tuple(lines[0].split())
    if not devices or not all(BDF_CELL.match(cell) for cell in devices):
        fail(TOPOLOGY_TOOL, f"{title} TABLE: expected a header of device BDFs, found {lines[0].strip()[:80]!r}")
    rows: dict[str, dict[str, str]] = {}
    for line in lines[1:]:
        cells = line.split()
        if not BDF_CELL.match(cells[0]) or len(cells) != len(devices) + 1:
            fail(TOPOLOGY_TOOL, f"{title} TABLE: expected '<bdf>' and {len(devices)} values, found {line.strip()[:80]!r}")
        rows[cells[0]] = dict(zip(devices, cells[1:]))
    missing = [device for device in devices if device not in rows]
    if missing:
        fail(TOPOLOGY_TOOL, f"{title} TABLE: no row for {', '.join(missing)} (truncated output?)")
    return devices, rows


@parser(TOPOLOGY_TOOL, "amd-smi topology: ACCESS, WEIGHT, HOPS, LINK TYPE, NUMA BW (and -cndz) tables of every GPU pair")
def parse_amd_smi_topology(text: str) -> AmdTopology:
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in clean_lines(TOPOLOGY_TOOL, text):
        title = TABLE_TITLE.match(line.strip())
        if title:
            current = blocks.setdefault(title.group(1), [])
        elif not line.strip() or line.strip() == "Legend:":
            current = None
        elif current is not None:
            current.append(line)
    if not blocks:
        fail(TOPOLOGY_TOOL, "no '<NAME> TABLE:' block")
    tables: dict[str, dict[str, dict[str, str]]] = {}
    devices: tuple[str, ...] = ()
    for title, lines in blocks.items():
        table_devices, tables[title] = _table(title, lines)
        if devices and table_devices != devices:
            fail(TOPOLOGY_TOOL, f"{title} TABLE: devices differ from the other tables")
        devices = table_devices
    return AmdTopology(devices, tables)


def _load_json(tool: str, text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(clean_text(tool, text))
    except ValueError as error:
        fail(tool, f"not JSON ({error})")
    if not isinstance(data, list) or not data or not all(isinstance(item, dict) and "gpu" in item for item in data):
        fail(tool, "expected a list of per-GPU objects with a 'gpu' key")
    return data


def _json_label(item: dict[str, Any]) -> str:
    bdf = item.get("bdf")
    return bdf if isinstance(bdf, str) and BDF_CELL.match(bdf) else f"gpu_{item['gpu']}"


@parser(TOPOLOGY_JSON_TOOL, "amd-smi topology --json (both layouts): the same tables as the text output")
def parse_amd_smi_topology_json(text: str) -> AmdTopology:
    data = _load_json(TOPOLOGY_JSON_TOOL, text)
    labels = {item["gpu"]: _json_label(item) for item in data}
    tables: dict[str, dict[str, dict[str, str]]] = {}
    for item in data:
        row = labels[item["gpu"]]
        if isinstance(item.get("links"), list):
            for link in item["links"]:
                if not isinstance(link, dict) or "gpu" not in link:
                    fail(TOPOLOGY_JSON_TOOL, f"gpu {item['gpu']}: a link without 'gpu'")
                column = _json_label(link)
                for table, (_, key) in JSON_TABLES.items():
                    if key in link:
                        tables.setdefault(table, {}).setdefault(row, {})[column] = str(link[key])
            continue
        found = False
        for table, (key, _) in JSON_TABLES.items():
            values = item.get(key)
            if isinstance(values, dict):
                found = True
                for name, value in values.items():
                    index = re.fullmatch(r"gpu_(\d+)", name)
                    if not index:
                        fail(TOPOLOGY_JSON_TOOL, f"gpu {item['gpu']}.{key}: unexpected key {name!r}")
                    tables.setdefault(table, {}).setdefault(row, {})[labels.get(int(index.group(1)), name)] = str(value)
        if not found:
            fail(TOPOLOGY_JSON_TOOL, f"gpu {item['gpu']}: neither 'links' nor per-GPU tables")
    return AmdTopology(tuple(labels[gpu] for gpu in sorted(labels)), tables)


def _tree(tool: str, text: str) -> dict[int, Tree]:
    """``GPU: <n>`` blocks of indented ``KEY: value`` lines as nested dicts (a key without value opens a level)."""
    gpus: dict[int, Tree] = {}
    stack: list[tuple[int, Tree]] = []
    for line in clean_lines(tool, text):
        if not line.strip() or line.strip() == "...":
            continue
        gpu = GPU_BLOCK.match(line)
        if gpu:
            stack = [(0, gpus.setdefault(int(gpu.group(1)), {}))]
            continue
        match = KEY_LINE.match(line.strip())
        if not stack or not match or not line[:1].isspace():
            fail(tool, f"expected 'GPU: <n>' or an indented 'KEY: value' line, found {line.strip()[:80]!r}")
        indent = len(line) - len(line.lstrip())
        while len(stack) > 1 and indent <= stack[-1][0]:
            stack.pop()
        key, value = match.group(1), match.group(2)
        if value is None:
            child: Tree = {}
            stack[-1][1][key] = child
            stack.append((indent, child))
        else:
            stack[-1][1][key] = value.strip()
    if not gpus:
        fail(tool, "no 'GPU: <n>' block")
    return gpus


@parser(STATIC_TOOL, "amd-smi static [--asic|--bus|--vbios|...]: per GPU, the nested KEY: value sections")
def parse_amd_smi_static(text: str) -> dict[int, Tree]:
    return _tree(STATIC_TOOL, text)


@parser(METRIC_TOOL, "amd-smi metric [--pcie|--power|--clock|...]: per GPU, the nested KEY: value sections")
def parse_amd_smi_metric(text: str) -> dict[int, Tree]:
    return _tree(METRIC_TOOL, text)


@parser(JSON_TOOL, "amd-smi static|metric|process --json: per GPU, the object amd-smi printed")
def parse_amd_smi_json(text: str) -> dict[int, dict[str, Any]]:
    data = _load_json(JSON_TOOL, text)
    gpus: dict[int, dict[str, Any]] = {}
    for item in data:
        if not isinstance(item["gpu"], int) or item["gpu"] in gpus:
            fail(JSON_TOOL, f"'gpu' {item['gpu']!r} is not a new GPU index")
        gpus[item["gpu"]] = {key: value for key, value in item.items() if key != "gpu"}
    return gpus


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
