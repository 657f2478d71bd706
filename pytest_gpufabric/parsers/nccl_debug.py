"""NCCL_DEBUG=INFO lines (NCCL and RCCL): version, network plugin devices, and the transport of every channel.

The channel lines say how each connection moves data: ``via NET/IB/0/GDRDMA`` (GPU direct RDMA),
``via NET/IB/0`` (RDMA through host memory), ``via NET/Socket/0`` (TCP), ``via P2P/IPC``,
``via P2P/CUMEM``, ``via P2P/direct pointer`` or ``via SHM`` (inside a node). The lines may be mixed with
any other output (the nccl-tests table, MPI messages); only NCCL lines are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "nccl-debug"

NCCL_LINE = re.compile(r"\bNCCL (INFO|WARN)\b\s*(.*)$")
VERSION = re.compile(r"^NCCL version (\S+)")
NET_IB_USING = re.compile(r"^NET/IB\s*:\s*Using\s+(.*?)(?:;\s*OOB\s+(\S+))?\s*$")
NET_IB_DEVICE = re.compile(r"\[(\d+)\]([^:\s\[\]]+):(\d+)/(\w+)")
NET_IB_NONE = re.compile(r"^NET/IB\s*:\s*No device found")
NET_SOCKET_USING = re.compile(r"^NET/Socket\s*:\s*Using\s+(.*)$")
SOCKET_DEVICE = re.compile(r"\[(\d+)\]([^:\s]+):(\S+?)(?=\s|$)")
CHANNEL = re.compile(r"^Channel (\d+)/(\d+)\s*:\s*(\d+)\[([0-9a-fA-Fx]+)\]\s*->\s*(\d+)\[([0-9a-fA-Fx]+)\]"
                     r"(?:\s*\[(send|receive)\])?\s+via\s+(.+?)(?:\s+comm\s+0x[0-9a-fA-F]+.*)?\s*$")


@dataclass(frozen=True)
class NetDevice:
    """One RDMA device of the NET/IB plugin: ``[0]bnxt_re0:1/RoCE`` is index 0, bnxt_re0, port 1, RoCE."""

    index: int
    name: str
    port: int
    link: str


@dataclass(frozen=True)
class ChannelConnection:
    """One ``Channel cc/s : r[dev] -> r[dev] [send] via TRANSPORT`` line.

    ``transport`` is the text after ``via`` (``NET/IB/6/GDRDMA``); ``kind`` classifies it:
    net_ib_gdrdma, net_ib, net_socket, p2p, shm, collnet, nvls or other. ``net_device`` is the NET device index.
    """

    channel: int
    source_rank: int
    source_device: str
    target_rank: int
    target_device: str
    direction: str | None
    transport: str
    kind: str
    net_device: int | None


@dataclass(frozen=True)
class NcclDebugInfo:
    """The NCCL facts of one NCCL_DEBUG=INFO output."""

    nccl_version: str | None
    ib_devices: tuple[NetDevice, ...]
    ib_no_device: bool
    socket_interfaces: tuple[str, ...]
    channels: tuple[ChannelConnection, ...]
    warnings: tuple[str, ...]


def _classify(transport: str) -> tuple[str, int | None]:
    net = re.match(r"NET/(IB|Socket|[A-Za-z]+)/(\d+)", transport)
    if net:
        if net.group(1) == "IB":
            return ("net_ib_gdrdma" if "GDRDMA" in transport else "net_ib"), int(net.group(2))
        return ("net_socket" if net.group(1) == "Socket" else "net_other"), int(net.group(2))
    for prefix, kind in (("P2P", "p2p"), ("SHM", "shm"), ("CollNet", "collnet"), ("NVLS", "nvls")):
        if transport.startswith(prefix):
            return kind, None
    return "other", None


@parser("nccl-debug", "NCCL_DEBUG=INFO: NCCL version, NET/IB devices, channel transports (GDRDMA, NET/IB, Socket, P2P)")
def parse_nccl_debug(text: str) -> NcclDebugInfo:
    """Parse the NCCL INFO/WARN lines of an output; ParseError when it holds none."""
    lines = clean_lines(TOOL, text)
    version: str | None = None
    ib_devices: dict[tuple[int, str, int, str], NetDevice] = {}
    ib_none = False
    sockets: list[str] = []
    channels: list[ChannelConnection] = []
    warnings: list[str] = []
    seen_nccl = False
    for line in lines:
        match = NCCL_LINE.search(line)
        if not match:
            continue
        seen_nccl = True
        level, message = match.group(1), match.group(2).strip()
        if level == "WARN":
            warnings.append(message)
            continue
        channel = CHANNEL.match(message)
        if channel:
            kind, net_device = _classify(channel.group(8))
            channels.append(ChannelConnection(int(channel.group(1)), int(channel.group(3)), channel.group(4),
                                              int(channel.group(5)), channel.group(6), channel.group(7),
                                              channel.group(8), kind, net_device))
            continue
        version_match = VERSION.match(message)
        if version_match and version is None:
            version = version_match.group(1)
            continue
        using = NET_IB_USING.match(message)
        if using:
            for dev in NET_IB_DEVICE.finditer(using.group(1)):
                key = (int(dev.group(1)), dev.group(2), int(dev.group(3)), dev.group(4))
                ib_devices.setdefault(key, NetDevice(*key))
            continue
        if NET_IB_NONE.match(message):
            ib_none = True
            continue
        socket = NET_SOCKET_USING.match(message)
        if socket:
            for dev in SOCKET_DEVICE.finditer(socket.group(1)):
                if dev.group(2) not in sockets:
                    sockets.append(dev.group(2))
    if not seen_nccl:
        fail(TOOL, "no 'NCCL INFO' or 'NCCL WARN' line found (was NCCL_DEBUG=INFO set?)")
    return NcclDebugInfo(version, tuple(sorted(ib_devices.values(), key=lambda d: d.index)), ib_none,
                         tuple(sockets), tuple(channels), tuple(warnings))


def network_channels(info: NcclDebugInfo) -> tuple[ChannelConnection, ...]:
    """Channels that leave the node (NET/...), as opposed to P2P/SHM inside it."""
    return tuple(c for c in info.channels if c.kind.startswith("net_"))


def channels_without_gdrdma(info: NcclDebugInfo) -> tuple[ChannelConnection, ...]:
    """Network channels that do not use GPU direct RDMA (plain NET/IB/<n> or NET/Socket)."""
    return tuple(c for c in network_channels(info) if c.kind != "net_ib_gdrdma")


def all_network_channels_use_gdrdma(info: NcclDebugInfo) -> bool | None:
    """True/False for COLL-004; None when the output has no network channel line to judge."""
    net = network_channels(info)
    if not net:
        return None
    return not channels_without_gdrdma(info)
