"""libibverbs utilities: ``ibv_devinfo [-v]`` (with its kernel-ABI warnings) and ``ibv_devices``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_int

DEVINFO_TOOL = "ibv-devinfo"
DEVICES_TOOL = "ibv-devices"

ABI_WARNING = re.compile(
    r"Driver\s+(\S+)\s+does not support the kernel ABI of\s+(\d+)\s+\(supports\s+(\d+)\s+to\s+(\d+)\)\s+for\s+device\s+(\S+)"
)
GID_LINE = re.compile(r"^GID\[\s*(\d+)\]:\s*([0-9a-fA-F:.]+)(?:,\s*(.+))?$")
VALUE_WITH_CODE = re.compile(r"^(\S+)(?:\s+\((\d+)\))?$")


@dataclass(frozen=True)
class AbiWarning:
    """``libibverbs: Warning: Driver X does not support the kernel ABI of N (supports A to B) for device D``."""

    driver: str
    kernel_abi: int
    supported_min: int
    supported_max: int
    device_path: str


@dataclass(frozen=True)
class Gid:
    index: int
    gid: str
    kind: Optional[str]  # "RoCE v2", "RoCE v1", None when not printed


@dataclass(frozen=True)
class IbvPort:
    number: int
    state: Optional[str]  # "PORT_ACTIVE"
    max_mtu: Optional[int]
    active_mtu: Optional[int]
    link_layer: Optional[str]
    gids: dict[int, Gid]


@dataclass(frozen=True)
class IbvDevice:
    hca_id: str
    transport: Optional[str]
    fw_ver: Optional[str]
    node_guid: Optional[str]
    vendor_id: Optional[str]
    vendor_part_id: Optional[str]
    board_id: Optional[str]
    ports: tuple[IbvPort, ...]

    def port(self, number: int = 1) -> Optional[IbvPort]:
        return next((port for port in self.ports if port.number == number), None)


@dataclass(frozen=True)
class IbvDevinfo:
    devices: tuple[IbvDevice, ...]
    abi_warnings: tuple[AbiWarning, ...]

    def get(self, hca_id: str) -> Optional[IbvDevice]:
        return next((device for device in self.devices if device.hca_id == hca_id), None)


def _mtu(hca: str, fields: dict[str, str], key: str) -> Optional[int]:
    if key not in fields:
        return None
    match = VALUE_WITH_CODE.match(fields[key])
    if not match:
        fail(DEVINFO_TOOL, f"{hca}: {key} {fields[key]!r} is not '<bytes> (<code>)'")
    return parse_int(DEVINFO_TOOL, match.group(1), f"{hca} {key}")


def _port(hca: str, number: int, fields: dict[str, str], gids: dict[int, Gid]) -> IbvPort:
    state = fields.get("state")
    return IbvPort(
        number=number,
        state=state.split()[0] if state else None,
        max_mtu=_mtu(hca, fields, "max_mtu"),
        active_mtu=_mtu(hca, fields, "active_mtu"),
        link_layer=fields.get("link_layer"),
        gids=dict(gids),
    )


def _device(hca: str, fields: dict[str, str], ports: list[IbvPort]) -> IbvDevice:
    if "phys_port_cnt" not in fields:
        fail(DEVINFO_TOOL, f"{hca}: no phys_port_cnt (truncated output?)")
    expected = parse_int(DEVINFO_TOOL, fields["phys_port_cnt"], f"{hca} phys_port_cnt")
    if len(ports) != expected:
        fail(DEVINFO_TOOL, f"{hca}: phys_port_cnt is {expected} but {len(ports)} port sections follow (truncated output?)")
    return IbvDevice(
        hca_id=hca,
        transport=fields.get("transport"),
        fw_ver=fields.get("fw_ver"),
        node_guid=fields.get("node_guid"),
        vendor_id=fields.get("vendor_id"),
        vendor_part_id=fields.get("vendor_part_id"),
        board_id=fields.get("board_id") or None,
        ports=tuple(ports),
    )


@parser(DEVINFO_TOOL, "ibv_devinfo [-v] 2>&1: devices, ports (state, MTU, link layer, GIDs), kernel-ABI warnings")
def parse_ibv_devinfo(text: str) -> IbvDevinfo:
    lines = [line.strip() for line in clean_lines(DEVINFO_TOOL, text)]
    warnings = tuple(
        AbiWarning(driver, int(abi), int(low), int(high), path)
        for driver, abi, low, high, path in ABI_WARNING.findall(" ".join(lines))
    )
    devices: list[IbvDevice] = []
    hca: Optional[str] = None
    device_fields: dict[str, str] = {}
    ports: list[IbvPort] = []
    port_number: Optional[int] = None
    port_fields: dict[str, str] = {}
    gids: dict[int, Gid] = {}

    def close_port() -> None:
        nonlocal port_number
        if hca is not None and port_number is not None:
            ports.append(_port(hca, port_number, port_fields, gids))
        port_number = None

    for line in lines:
        if line.startswith("libibverbs:"):
            continue
        gid = GID_LINE.match(line)
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "hca_id":
            close_port()
            if hca is not None:
                devices.append(_device(hca, device_fields, ports))
            hca, device_fields, ports = value, {}, []
        elif hca is None:
            continue
        elif key == "port":
            close_port()
            port_number = parse_int(DEVINFO_TOOL, value, f"{hca} port number")
            port_fields, gids = {}, {}
        elif gid and port_number is not None:
            index = int(gid.group(1))
            gids[index] = Gid(index, gid.group(2).lower(), gid.group(3).strip() if gid.group(3) else None)
        elif sep and key and " " not in key:
            (port_fields if port_number is not None else device_fields).setdefault(key, value)
    close_port()
    if hca is not None:
        devices.append(_device(hca, device_fields, ports))
    if not devices and not warnings and not any("No IB devices found" in line for line in lines):
        fail(DEVINFO_TOOL, "no 'hca_id:' device, no kernel-ABI warning and no 'No IB devices found'")
    return IbvDevinfo(tuple(devices), warnings)


@dataclass(frozen=True)
class IbvDeviceGuid:
    name: str
    node_guid: str  # 16 hex digits, lower case

    @property
    def guid_is_zero(self) -> bool:
        return int(self.node_guid, 16) == 0


@parser(DEVICES_TOOL, "ibv_devices: node GUID of every RDMA device")
def parse_ibv_devices(text: str) -> tuple[IbvDeviceGuid, ...]:
    lines = [line.strip() for line in clean_lines(DEVICES_TOOL, text)]
    header = next((i for i, line in enumerate(lines) if re.fullmatch(r"device\s+node GUID", line)), None)
    if header is None:
        fail(DEVICES_TOOL, "no 'device node GUID' header")
    devices = []
    for line in lines[header + 1 :]:
        if not line or re.fullmatch(r"[-\s]+", line):  # ibv_devices prints "    ------          \t----------------"
            continue
        words = line.split()
        if len(words) != 2 or not re.fullmatch(r"[0-9a-fA-F]{16}", words[1]):
            fail(DEVICES_TOOL, f"expected '<device> <16-hex-digit GUID>', found {line!r}")
        devices.append(IbvDeviceGuid(words[0], words[1].lower()))
    return tuple(devices)
