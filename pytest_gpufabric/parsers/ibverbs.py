"""libibverbs utilities: ``ibv_devinfo [-v]`` (with its kernel-ABI warnings) and ``ibv_devices``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import first_word
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

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


# The fields read, with the form each must have (ibv_devinfo's own: rdma-core libibverbs/examples/devinfo.c);
# other ``key: value`` lines (``-v`` prints dozens) are known.
DEVICE_FIELDS = {
    "transport": re.compile(r"^\S+(?: \S+)* \(\d+\)$"), "fw_ver": re.compile(r"^\S+$"),
    "node_guid": re.compile(r"^[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){3}$"), "vendor_id": re.compile(r"^0x[0-9a-fA-F]+$"),
    "vendor_part_id": re.compile(r"^\d+$"), "board_id": re.compile(r"^\S*$"), "phys_port_cnt": re.compile(r"^\d+$"),
}  # fmt: skip
PORT_FIELDS = {
    "state": re.compile(r"^(PORT_\w+) \(\d+\)$"), "max_mtu": re.compile(r"^(\d+) \(\d+\)$"),
    "active_mtu": re.compile(r"^(\d+) \(\d+\)$"), "link_layer": re.compile(r"^(InfiniBand|Ethernet|Unspecified|IB)$"),
}  # fmt: skip
FIELD = re.compile(r"^([a-z_][a-z0-9_]*):\s*(.*)$")  # ibv_devinfo's attribute names are lower-case
FLAG_NAMES = re.compile(r"^[A-Z0-9_]+(?:\s+[A-Z0-9_]+)*$")  # the names ``-v`` lists under a flags field
ABI_START = re.compile(r"^libibverbs: Warning: Driver .* for\s*$")  # a warning a document wrapped before "device"
NO_DEVICE = "No IB devices found"
PORT = re.compile(r"^port:\s*\d+$")
DEVICE_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")  # an RDMA device name as the kernel registers it


@dataclass
class _Device:
    hca: str
    fields: dict[str, str]
    ports: dict[int, tuple[dict[str, str], dict[int, Gid]]]


def _port(number: int, fields: dict[str, str], gids: dict[int, Gid]) -> IbvPort:
    state, max_mtu, active_mtu = fields.get("state"), fields.get("max_mtu"), fields.get("active_mtu")
    return IbvPort(number=number, state=state.split()[0] if state else None,
                   max_mtu=int(max_mtu.split()[0]) if max_mtu else None,
                   active_mtu=int(active_mtu.split()[0]) if active_mtu else None,
                   link_layer=fields.get("link_layer"), gids=dict(gids))


def _device(device: _Device) -> IbvDevice:
    fields = device.fields
    return IbvDevice(hca_id=device.hca, transport=fields.get("transport"), fw_ver=fields.get("fw_ver"),
                     node_guid=fields.get("node_guid"), vendor_id=fields.get("vendor_id"),
                     vendor_part_id=fields.get("vendor_part_id"), board_id=fields.get("board_id") or None,
                     ports=tuple(_port(n, f, g) for n, (f, g) in device.ports.items()))


def _gid(line: Line) -> Gid:
    gid = GID_LINE.match(line.stripped)
    if gid is None:
        raise Unfit("expected 'GID[<index>]: <gid>[, <type>]'")
    kind = gid.group(3).strip() if gid.group(3) else None
    if kind is not None and kind not in ("RoCE v1", "RoCE v2", "IB/RoCE v1"):
        raise Unfit(f"GID type {kind!r} is none of RoCE v1, RoCE v2")
    return Gid(int(gid.group(1)), gid.group(2).lower(), kind)


def _field(reading: Reading, line: Line, device: _Device, port: Optional[int]) -> None:
    """One ``key: value`` line of ``device`` (of its ``port`` when one has started)."""
    if port is not None and line.stripped.startswith("GID["):
        with reading.row(line, scope=device.hca):
            gid = _gid(line)
            gids = device.ports[port][1]
            if gid.index in gids:
                raise Unfit(f"GID {gid.index} listed twice")
            gids[gid.index] = gid
        return
    field = FIELD.match(line.stripped)
    if field is None:
        if FLAG_NAMES.match(line.stripped):
            reading.known(line)  # flag names ``-v`` lists under a capability field
        else:
            reading.unread(line, "expected 'key: value'", device.hca)
        return
    key, value = field.group(1).strip(), field.group(2).strip()
    forms = PORT_FIELDS if port is not None else DEVICE_FIELDS
    if key not in forms:
        reading.known(line)
        return
    target = device.ports[port][0] if port is not None else device.fields
    with reading.row(line, scope=device.hca):
        if key in target:
            raise Unfit(f"{key} given twice")
        if not forms[key].match(value):
            raise Unfit(f"{key} {value!r} is not in the form ibv_devinfo prints")
        target[key] = value


def _abi_warning(text: str) -> AbiWarning:
    match = ABI_WARNING.search(text)
    if match is None:
        raise Unfit("a libibverbs warning of another form")
    driver, abi, low, high, path = match.groups()
    return AbiWarning(driver, int(abi), int(low), int(high), path)


@parser(DEVINFO_TOOL, "ibv_devinfo [-v] 2>&1: devices, ports (state, MTU, link layer, GIDs), kernel-ABI warnings")
def parse_ibv_devinfo(text: str) -> Parsed[IbvDevinfo]:
    """Devices, their ports and GIDs, and libibverbs' kernel-ABI warnings (also as a document wraps them, over two
    lines). Read by the parsing rule: a value only in the form ibv_devinfo prints it; a line of another form costs
    only its own fact (kept unread, scoped to its device); a device cut short keeps what was printed of it."""
    reading = Reading(DEVINFO_TOOL, text)
    refuse_unfinished_line(reading, text)
    devices: list[_Device] = []
    warnings: list[AbiWarning] = []
    port: Optional[int] = None
    skip: Optional[tuple[str, str]] = ("before any 'hca_id:' line: its device is not known", "")
    lines = reading.content()
    for index, line in enumerate(lines):
        if reading.outcome(line) is not None:
            continue  # the second half of a wrapped warning
        stripped = line.stripped
        if stripped.startswith("libibverbs:"):
            follows = lines[index + 1] if index + 1 < len(lines) else None
            wrapped = follows if ABI_START.match(stripped) and follows and follows.stripped.startswith("device ") else None
            with reading.row(line):
                warnings.append(_abi_warning(f"{stripped} {wrapped.stripped}" if wrapped else stripped))
            if wrapped is not None:
                reading.used(wrapped) if reading.outcome(line) == "used" else reading.unread(wrapped, "a wrapped warning")
        elif stripped == NO_DEVICE:
            reading.used(line)
        elif stripped.startswith("hca_id:"):
            hca, port = stripped.partition(":")[2].strip(), None
            skip = ("an hca_id without a name, or listed twice", hca) if not hca or any(d.hca == hca for d in devices) else None
            if skip:
                reading.unread(line, *skip)
            else:
                devices.append(_Device(hca, {}, {}))
                reading.used(line)
        elif PORT.match(stripped) and devices and (skip is None or skip[0].startswith("port")):
            port = int(stripped.partition(":")[2])
            skip = (f"port {port} of {devices[-1].hca} listed twice", devices[-1].hca) if port in devices[-1].ports else None
            if skip:
                reading.unread(line, *skip)
            else:
                devices[-1].ports[port] = ({}, {})
                reading.known(line)
        elif skip is not None:
            reading.unread(line, *skip)
        else:
            _field(reading, line, devices[-1], port)
    found = tuple(_device(d) for d in devices)
    return reading.done(IbvDevinfo(found, tuple(warnings)),
                        nothing="no 'hca_id:' device, no kernel-ABI warning and no 'No IB devices found'")


@dataclass(frozen=True)
class IbvDeviceGuid:
    name: str
    node_guid: str  # 16 hex digits, lower case

    @property
    def guid_is_zero(self) -> bool:
        return int(self.node_guid, 16) == 0


@parser(DEVICES_TOOL, "ibv_devices: node GUID of every RDMA device")
def parse_ibv_devices(text: str) -> Parsed[tuple[IbvDeviceGuid, ...]]:
    """``device node GUID`` and a dash line, then ``<device> <16 hex digits>`` per device. A header without rows
    is the answer of a node with no device (the header is the fact then). A row of another form costs only its
    own device (kept unread); lines before the header are unread."""
    reading = Reading(DEVICES_TOOL, text)
    refuse_unfinished_line(reading, text)
    devices: list[IbvDeviceGuid] = []
    header: Optional[Line] = None
    for line in reading.content():
        if re.fullmatch(r"device\s+node GUID", line.stripped) and header is None:
            header = line
            reading.known(line)
        elif header is None:
            reading.unread(line, "before the 'device node GUID' header")
        elif re.fullmatch(r"-+\s+-+", line.stripped):
            reading.known(line)  # ibv_devices prints "    ------          \t----------------"
        else:
            words = line.stripped.split()
            with reading.row(line, scope=first_word(line)):
                if len(words) != 2 or not re.fullmatch(r"[0-9a-fA-F]{16}", words[1]) or not DEVICE_NAME.match(words[0]):
                    raise Unfit("expected '<device> <16-hex-digit GUID>'")
                devices.append(IbvDeviceGuid(words[0], words[1].lower()))
    if header is not None and not devices and not reading.unread_lines():
        reading.used(header)  # no device: the header alone is the answer
    return reading.done(tuple(devices), nothing="no 'device node GUID' header with its devices")
