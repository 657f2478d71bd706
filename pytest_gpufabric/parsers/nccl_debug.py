"""NCCL_DEBUG=INFO lines (NCCL and RCCL): version, network plugin devices, and the transport of every channel.

The channel lines say how each connection moves data: ``via NET/IB/0/GDRDMA`` (GPU direct RDMA),
``via NET/IB/0`` (RDMA through host memory), ``via NET/Socket/0`` (TCP), ``via P2P/IPC``,
``via P2P/CUMEM``, ``via P2P/direct pointer`` or ``via SHM`` (inside a node). The lines may be mixed with
any other output (the nccl-tests table, MPI messages); only NCCL lines are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "nccl-debug"

NCCL_LINE = re.compile(r"\bNCCL (INFO|WARN)\b\s*(.*)$")
VERSION = re.compile(r"^NCCL version (\S+)")
NET_IB_USING = re.compile(r"^NET/IB\s*:\s*Using\s+(.*?)(?:;\s*OOB\s+(\S+))?\s*$")
NET_IB_DEVICE = re.compile(r"\[(\d+)\]([^:\s\[\]]+):(\d+)/(\w+)")
RELAXED_ORDERING = re.compile(r"\[RO\]")  # NCCL 2.12 and later: the plugin registers memory with relaxed ordering
NET_IB_NONE = re.compile(r"^NET/IB\s*:\s*No device found")
NET_SOCKET_USING = re.compile(r"^NET/Socket\s*:\s*Using\s+(.*)$")
SOCKET_DEVICE = re.compile(r"\[(\d+)\]([^:\s]+):(\S+?)(?=\s|$)")
# Messages whose subject is one of the facts read: one that does not fit its full form is unread, never guessed.
LOOKS_READ = re.compile(r"^(Channel \d+/\d+\s*:.*->|NCCL version\b|NET/IB\s*:\s*Using|NET/Socket\s*:\s*Using)")
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


def _read(message: str, facts: _Facts) -> bool:
    """Read one NCCL INFO message into ``facts``; False when it has none of the forms read (the caller decides
    whether it is merely another message or one of these forms damaged)."""
    channel = CHANNEL.match(message)
    if channel:
        kind, net_device = _classify(channel.group(8))
        facts.channels.append(ChannelConnection(int(channel.group(1)), int(channel.group(3)), channel.group(4),
                                                int(channel.group(5)), channel.group(6), channel.group(7),
                                                channel.group(8), kind, net_device))
        return True
    version = VERSION.match(message)
    if version:
        facts.version = facts.version or version.group(1)
        return True
    using = NET_IB_USING.match(message)
    if using and not RELAXED_ORDERING.sub("", NET_IB_DEVICE.sub("", using.group(1))).strip():
        for dev in NET_IB_DEVICE.finditer(using.group(1)):
            key = (int(dev.group(1)), dev.group(2), int(dev.group(3)), dev.group(4))
            facts.ib_devices.setdefault(key, NetDevice(*key))
        return True
    if NET_IB_NONE.match(message):
        facts.ib_none = True
        return True
    socket = NET_SOCKET_USING.match(message)
    if socket and SOCKET_DEVICE.search(socket.group(1)):
        for dev in SOCKET_DEVICE.finditer(socket.group(1)):
            if dev.group(2) not in facts.sockets:
                facts.sockets.append(dev.group(2))
        return True
    return False


@dataclass
class _Facts:
    version: str | None = None
    ib_devices: dict[tuple[int, str, int, str], NetDevice] = field(default_factory=dict)
    ib_none: bool = False
    sockets: list[str] = field(default_factory=list)
    channels: list[ChannelConnection] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@parser("nccl-debug", "NCCL_DEBUG=INFO: NCCL version, NET/IB devices, channel transports (GDRDMA, NET/IB, Socket, P2P)")
def parse_nccl_debug(text: str) -> Parsed[NcclDebugInfo]:
    """Parse the NCCL INFO/WARN lines of an output; ParseError when it holds none. Read by the parsing rule: the
    other lines of the output (a benchmark's table, MPI messages) are not this parser's subject (known), and so are
    NCCL messages of other subjects (rings, trees, tuning); a message of one of the forms read that does not fit
    it (a channel line whose transport cannot be told, a ``NET/IB : Using`` list of another form) costs only its
    own facts and is kept unread."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    facts = _Facts()
    first_nccl = None
    for line in reading.content():
        match = NCCL_LINE.search(line.text)
        if not match:
            reading.known(line)  # the rest of the output: not NCCL's
            continue
        level, message = match.group(1), match.group(2).strip()
        first_nccl = first_nccl or line
        if level == "WARN":
            facts.warnings.append(message)
            reading.used(line)
        elif _read(message, facts):
            reading.used(line)
        elif LOOKS_READ.match(message):
            reading.unread(line, "an NCCL message of a form read here that does not fit it")
        else:
            reading.known(line)  # an NCCL message of another subject
    if first_nccl is not None and facts == _Facts():
        # NCCL logged at INFO but none of its messages is of a subject read: that absence (no version, device or
        # channel line) is the output's fact, as a run that stopped early shows it
        reading.used(first_nccl)
    info = NcclDebugInfo(facts.version, tuple(sorted(facts.ib_devices.values(), key=lambda d: d.index)), facts.ib_none,
                         tuple(facts.sockets), tuple(facts.channels), tuple(facts.warnings))
    return reading.done(info, nothing="no 'NCCL INFO' or 'NCCL WARN' line read (was NCCL_DEBUG=INFO set?)")


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
