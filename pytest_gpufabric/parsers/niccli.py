"""Broadcom ``niccli``: QoS (``qos --ets --show`` / older ``getqos``), ``--listmap --pri2cos``,
``--dscp2prio``, ``nvm --getoption`` and ``--list``.

``niccli -i N`` and ``niccli --dev N`` print the same bodies; older releases print ``TSA MAP`` for
``TSA_MAP`` and only the configured traffic classes in ``TC Bandwidth``. Both are accepted as printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_int

QOS_TOOL = "niccli-qos"
PRI2COS_TOOL = "niccli-pri2cos"
DSCP2PRIO_TOOL = "niccli-dscp2prio"
NVM_TOOL = "niccli-nvm-getoption"
LIST_TOOL = "niccli-list"

APP_HEADER = re.compile(r"^APP#(\d+)\s*:$")
APP_PROTOCOLS = {"DSCP": "dscp", "UDP or DCCP": "udp", "TCP or SCTP": "tcp", "Ethertype": "ethertype"}


@dataclass(frozen=True)
class AppEntry:
    """One IEEE 802.1Qaz APP TLV entry: traffic matching (protocol, value) gets ``priority``."""

    index: int
    priority: int
    selector: int
    protocol: str  # "dscp", "udp", "tcp", "ethertype"
    value: int


@dataclass(frozen=True)
class NicQos:
    """The QoS TLVs of one NIC port.

    ``pfc_enabled`` is None when the output has no PFC TLV; ``app`` is None when it has no APP TLV.
    """

    prio_map: dict[int, int]  # priority -> traffic class
    tc_bandwidth: tuple[int, ...]  # percent per traffic class, TC0 first, as many as printed
    tsa_map: dict[int, str]  # traffic class -> "ets" | "strict"
    pfc_enabled: Optional[frozenset[int]]
    app: Optional[tuple[AppEntry, ...]]
    tc_rate_limit: Optional[tuple[int, ...]]

    @property
    def unconfigured(self) -> bool:
        """The state of S0 5.1 FAQ 5: every priority in TC0, no bandwidth, PFC on no priority."""
        return (
            set(self.prio_map.values()) <= {0}
            and not any(self.tc_bandwidth)
            and not self.pfc_enabled
        )

    def app_priority(self, protocol: str, value: int) -> Optional[int]:
        """The priority the APP TLV gives (protocol, value), or None."""
        for entry in self.app or ():
            if entry.protocol == protocol and entry.value == value:
                return entry.priority
        return None


def _pairs(tool: str, field: str, text: str) -> list[tuple[str, str]]:
    pairs = []
    for token in text.split():
        left, sep, right = token.partition(":")
        if not sep or not left or not right:
            fail(tool, f"{field}: entry {token!r} is not '<number>:<value>'")
        pairs.append((left, right))
    if not pairs:
        fail(tool, f"{field} has no entries")
    return pairs


def _percentages(tool: str, field: str, text: str) -> tuple[int, ...]:
    values = []
    for token in text.split():
        if not token.endswith("%"):
            fail(tool, f"{field}: {token!r} is not a percentage")
        values.append(parse_int(tool, token[:-1], field))
    if not values:
        fail(tool, f"{field} has no values")
    return tuple(values)


def _app_entries(lines: list[str]) -> tuple[AppEntry, ...]:
    entries: list[AppEntry] = []
    current: Optional[dict[str, str]] = None
    index = -1

    def close() -> None:
        if current is None:
            return
        protocol = next((name for key, name in APP_PROTOCOLS.items() if key in current), None)
        if "Priority" not in current or "Sel" not in current or protocol is None:
            fail(QOS_TOOL, f"APP#{index}: expected Priority, Sel and a protocol line, found {sorted(current)}")
        value_key = next(key for key, name in APP_PROTOCOLS.items() if name == protocol)
        entries.append(
            AppEntry(
                index=index,
                priority=parse_int(QOS_TOOL, current["Priority"], f"APP#{index} Priority"),
                selector=parse_int(QOS_TOOL, current["Sel"], f"APP#{index} Sel"),
                protocol=protocol,
                value=parse_int(QOS_TOOL, current[value_key], f"APP#{index} {value_key}"),
            )
        )

    for line in lines:
        header = APP_HEADER.match(line)
        if header:
            close()
            current, index = {}, int(header.group(1))
        elif current is not None and ":" in line:
            key, _, value = line.partition(":")
            current[key.strip()] = value.strip()
    close()
    return tuple(entries)


@parser(QOS_TOOL, "niccli qos --ets --show (or getqos): PRIO_MAP, TC bandwidth, TSA, PFC, APP TLVs")
def parse_niccli_qos(text: str) -> NicQos:
    lines = [line.strip() for line in clean_lines(QOS_TOOL, text)]
    fields: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip().replace("TSA MAP", "TSA_MAP"), value.strip())
    if not any(line.startswith("IEEE 8021QAZ ETS") for line in lines):
        fail(QOS_TOOL, "no 'IEEE 8021QAZ ETS Configuration TLV' section")
    for required in ("PRIO_MAP", "TC Bandwidth", "TSA_MAP"):
        if required not in fields:
            fail(QOS_TOOL, f"ETS TLV without {required} (truncated output?)")
    prio_map = {
        parse_int(QOS_TOOL, p, "PRIO_MAP priority"): parse_int(QOS_TOOL, tc, "PRIO_MAP traffic class")
        for p, tc in _pairs(QOS_TOOL, "PRIO_MAP", fields["PRIO_MAP"])
    }
    tsa_map = {parse_int(QOS_TOOL, tc, "TSA_MAP traffic class"): tsa for tc, tsa in _pairs(QOS_TOOL, "TSA_MAP", fields["TSA_MAP"])}
    pfc: Optional[frozenset[int]] = None
    if any(line.startswith("IEEE 8021QAZ PFC") for line in lines):
        if "PFC enabled" not in fields:
            fail(QOS_TOOL, "PFC TLV without 'PFC enabled' (truncated output?)")
        raw = fields["PFC enabled"]
        pfc = frozenset() if raw.lower() == "none" else frozenset(
            parse_int(QOS_TOOL, value, "PFC enabled priority") for value in raw.replace(",", " ").split()
        )
    app_start = next((i for i, line in enumerate(lines) if line.startswith("IEEE 8021QAZ APP")), None)
    app = None if app_start is None else _app_entries(lines[app_start + 1 :])
    rate = fields.get("TC Rate Limit")
    return NicQos(
        prio_map=prio_map,
        tc_bandwidth=_percentages(QOS_TOOL, "TC Bandwidth", fields["TC Bandwidth"]),
        tsa_map=tsa_map,
        pfc_enabled=pfc,
        app=app,
        tc_rate_limit=None if rate is None else _percentages(QOS_TOOL, "TC Rate Limit", rate),
    )


@dataclass(frozen=True)
class PriorityQueue:
    priority: int
    traffic_class: int
    hw_queue: int


@dataclass(frozen=True)
class Pri2Cos:
    """``qos --listmap --pri2cos``: traffic class and hardware queue of every priority."""

    base_queue: Optional[int]
    entries: tuple[PriorityQueue, ...]

    def traffic_class(self, priority: int) -> Optional[int]:
        return next((e.traffic_class for e in self.entries if e.priority == priority), None)


@parser(PRI2COS_TOOL, "niccli qos --listmap --pri2cos: priority -> traffic class and hardware queue")
def parse_niccli_pri2cos(text: str) -> Pri2Cos:
    lines = [line.strip() for line in clean_lines(PRI2COS_TOOL, text)]
    header = next((i for i, line in enumerate(lines) if line.startswith("Priority") and "TC" in line), None)
    if header is None:
        fail(PRI2COS_TOOL, "no 'Priority   TC HW Queue ID' table header")
    base = next((re.search(r"Base Queue is (\d+)", line) for line in lines if "Base Queue is" in line), None)
    entries = []
    for line in lines[header + 1 :]:
        if not line or set(line) <= {"-"}:
            continue
        words = line.split()
        if len(words) != 3 or not all(word.isdigit() for word in words):
            if entries:
                break  # the table ended; niccli may print more (e.g. "RoCE Bi-Di Optimization")
            fail(PRI2COS_TOOL, f"expected '<priority> <tc> <queue>', found {line!r}")
        entries.append(PriorityQueue(*(int(word) for word in words)))
    if not entries:
        fail(PRI2COS_TOOL, "the table has no rows (truncated output?)")
    return Pri2Cos(base_queue=int(base.group(1)) if base else None, entries=tuple(entries))


@dataclass(frozen=True)
class Dscp2Prio:
    """``qos --dscp2prio``: DSCP value -> priority (empty when nothing is mapped)."""

    mapping: dict[int, int]


@parser(DSCP2PRIO_TOOL, "niccli qos --dscp2prio: DSCP -> priority")
def parse_niccli_dscp2prio(text: str) -> Dscp2Prio:
    lines = [line.strip() for line in clean_lines(DSCP2PRIO_TOOL, text)]
    has_header = any(line.lower().startswith("dscp2prio mapping") for line in lines)
    mapping: dict[int, int] = {}
    for line in lines:
        match = re.match(r"^priority:\s*(\d+)\s+dscp:\s*([\d,\s]+)$", line)
        if match:
            priority = int(match.group(1))
            for dscp in filter(None, (value.strip() for value in match.group(2).split(","))):
                mapping[parse_int(DSCP2PRIO_TOOL, dscp, "dscp")] = priority
        elif line.startswith("priority"):
            fail(DSCP2PRIO_TOOL, f"expected 'priority:<n> dscp:<n>,...', found {line!r}")
    if not has_header and not mapping:
        fail(DSCP2PRIO_TOOL, "no 'dscp2prio mapping:' header and no 'priority:<n> dscp:<n>' line")
    return Dscp2Prio(mapping)


@dataclass(frozen=True)
class NvmOption:
    """``nvm --getoption NAME``: the value as printed, and what it means when that is unambiguous."""

    name: str
    value: str
    enabled: Optional[bool]  # True/Enabled -> True, False/Disabled -> False, otherwise None
    number: Optional[int]  # "1" or "Enabled (1)" -> 1, otherwise None


@parser(NVM_TOOL, "niccli nvm --getoption NAME: 'name = value'")
def parse_niccli_nvm_option(text: str) -> NvmOption:
    assignments = [line.strip() for line in clean_lines(NVM_TOOL, text) if re.match(r"^\s*\w+\s*=", line)]
    if len(assignments) != 1:
        fail(NVM_TOOL, f"expected one 'name = value' line, found {len(assignments)}")
    name, _, value = (part.strip() for part in assignments[0].partition("="))
    if not value:
        fail(NVM_TOOL, f"{name} has no value")
    word = value.split("(")[0].strip().lower()
    enabled = {"true": True, "enabled": True, "false": False, "disabled": False}.get(word)
    number = re.fullmatch(r"(?:.*\()?\s*(-?\d+)\s*\)?", value)
    return NvmOption(name=name, value=value, enabled=enabled, number=int(number.group(1)) if number else None)


@dataclass(frozen=True)
class NicListEntry:
    """One NIC of ``niccli --list`` (one table row) or ``--list_devices`` (one block); what a layout does not
    print is None (``--list_devices`` names the interface but not the firmware, ``--list`` the reverse)."""

    index: int
    board: str
    mac: str
    firmware: Optional[str]
    pci_address: str
    kind: Optional[str]
    mode: Optional[str]
    interface: Optional[str] = None
    port: Optional[str] = None


LIST_ROW = re.compile(r"^\s*(\d+)\s*\)\s+(.+)$")
# niccli 227 and earlier print PCIAddr as domain:bus:device:function, two hex digits each ("00:0d:00:01").
NICCLI_PCI = re.compile(r"^([0-9a-fA-F]{2}):([0-9a-fA-F]{2}):([01][0-9a-fA-F]):0([0-7])$")
# niccli 234 and later: "1) Broadcom BCM57608 1x400G QSFP-DD PCIe Ethernet NIC (Adp#1 Port#1)", then indented
# "Device Interface : ...", "MAC Address : ...", "PCI Address : ..." lines.
BLOCK_FIELDS = {"Device Interface": "interface", "MAC Address": "mac", "PCI Address": "pci"}


def _table_pci(address: str) -> str | None:
    """``dddd:bb:dd.f`` of a PCIAddr cell in either form; None when it is neither."""
    if is_bdf(address):
        return normalize_bdf(address)
    old = NICCLI_PCI.match(address)
    if old is None:
        return None
    domain, bus, device, function = old.groups()
    return normalize_bdf(f"00{domain}:{bus}:{device}.{function}")


def _table_row(line: str, match: re.Match[str]) -> NicListEntry:
    words = match.group(2).split()
    pci = _table_pci(words[3]) if len(words) == 6 else None
    if pci is None:
        fail(LIST_TOOL, f"expected '<n>) <board> <mac> <firmware> <pci> <type> <mode>', found {line.strip()!r}")
    board, mac, firmware, _, kind, mode = words
    return NicListEntry(int(match.group(1)), board, mac.lower(), firmware, pci, kind, mode)


def _block(index: int, title: str, fields: dict[str, str]) -> NicListEntry:
    missing = [name for name, key in BLOCK_FIELDS.items() if key not in fields]
    if missing:
        fail(LIST_TOOL, f"device {index}: no {', '.join(missing)} line (output truncated?)")
    if not is_bdf(fields["pci"]):
        fail(LIST_TOOL, f"device {index}: PCI Address {fields['pci']!r} is not a PCI address")
    port = re.search(r"\(([^()]*)\)\s*$", title)
    board = title[: port.start()].strip() if port else title.strip()
    return NicListEntry(index, board, fields["mac"].lower(), None, normalize_bdf(fields["pci"]), None, None,
                        fields["interface"], port.group(1) if port else None)


def _entry(line: str, match: re.Match[str], fields: dict[str, str]) -> NicListEntry:
    """A table row, or, when field lines followed it, the title of a ``--list_devices`` block."""
    return _block(int(match.group(1)), match.group(2), fields) if fields else _table_row(line, match)


@parser(LIST_TOOL, "niccli --list / --list_devices: index, board, MAC, PCI address (firmware or interface) of each NIC")
def parse_niccli_list(text: str) -> tuple[NicListEntry, ...]:
    entries: list[NicListEntry] = []
    pending: tuple[str, re.Match[str], dict[str, str]] | None = None
    for line in clean_lines(LIST_TOOL, text):
        match = LIST_ROW.match(line)
        if match:
            if pending:
                entries.append(_entry(*pending))
            pending = (line, match, {})
            continue
        key, sep, value = line.partition(":")
        if pending is not None and sep and key.strip() in BLOCK_FIELDS:
            pending[2][BLOCK_FIELDS[key.strip()]] = value.strip()
    if pending:
        entries.append(_entry(*pending))
    if not entries:
        fail(LIST_TOOL, "no '<n>) <board> ...' row")
    return tuple(entries)
