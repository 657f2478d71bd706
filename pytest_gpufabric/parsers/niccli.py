"""Broadcom ``niccli``: QoS (``qos --ets --show`` / older ``getqos``), ``--listmap --pri2cos``,
``--dscp2prio``, ``nvm --getoption`` and ``--list``.

``niccli -i N`` and ``niccli --dev N`` print the same bodies; older releases print ``TSA MAP`` for
``TSA_MAP`` and only the configured traffic classes in ``TC Bandwidth``. Both are accepted as printed.
Every output is read by the parsing rule: a line of another form (an OCR slip such as ``©:0``) costs only its
own facts and is kept unread; a map or table with such a line says it is incomplete, so that a check never
reads "not mapped" from a line it did not understand. niccli's banner (``Scrutiny NIC CLI v...`` between dash
lines) is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pytest_gpufabric.parsers.pci_path import is_bdf, normalize_bdf
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import first_word
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

QOS_TOOL = "niccli-qos"
PRI2COS_TOOL = "niccli-pri2cos"
DSCP2PRIO_TOOL = "niccli-dscp2prio"
NVM_TOOL = "niccli-nvm-getoption"
LIST_TOOL = "niccli-list"

BANNER = re.compile(r"^-{10,}$|^(Scrutiny )?NIC CLI v[\d.]+ - Broadcom Inc\..*$")
TLV = re.compile(r"^IEEE 8021QAZ (ETS Configuration|PFC|APP) TLV:$")
APP_HEADER = re.compile(r"^APP#(\d+)\s*:$")
APP_PROTOCOLS = {"DSCP": "dscp", "UDP or DCCP": "udp", "TCP or SCTP": "tcp", "Ethertype": "ethertype"}
QOS_FIELDS = ("PRIO_MAP", "TC Bandwidth", "TSA_MAP", "PFC enabled", "TC Rate Limit")
TSA = ("ets", "strict")


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
    """The QoS TLVs of one NIC port; a field whose line the output lacks or that was not understood is None.

    ``pfc_enabled`` is None when the output has no PFC TLV (or its line was not read); ``app`` is None when it has
    no APP TLV; ``app_incomplete`` when an APP entry was not read whole (its absence from ``app`` means nothing).
    """

    prio_map: Optional[dict[int, int]]  # priority -> traffic class
    tc_bandwidth: Optional[tuple[int, ...]]  # percent per traffic class, TC0 first, as many as printed
    tsa_map: Optional[dict[int, str]]  # traffic class -> "ets" | "strict"
    pfc_enabled: Optional[frozenset[int]]
    app: Optional[tuple[AppEntry, ...]]
    tc_rate_limit: Optional[tuple[int, ...]]
    app_incomplete: bool = False

    @property
    def unconfigured(self) -> Optional[bool]:
        """The state of S0 5.1 FAQ 5: every priority in TC0, no bandwidth, PFC on no priority; None when a
        field it needs was not read."""
        if self.prio_map is None or self.tc_bandwidth is None:
            return None
        return set(self.prio_map.values()) <= {0} and not any(self.tc_bandwidth) and not self.pfc_enabled

    def app_priority(self, protocol: str, value: int) -> Optional[int]:
        """The priority the APP TLV gives (protocol, value), or None."""
        for entry in self.app or ():
            if entry.protocol == protocol and entry.value == value:
                return entry.priority
        return None


def _pairs(field: str, text: str) -> list[tuple[int, str]]:
    pairs = []
    for token in text.split():
        left, sep, right = token.partition(":")
        if not sep or not right:
            raise Unfit(f"{field}: entry {token!r} is not '<number>:<value>'")
        pairs.append((integer(left, field), right))
    if not pairs:
        raise Unfit(f"{field} has no entries")
    if len({left for left, _ in pairs}) != len(pairs):
        raise Unfit(f"{field}: a number given twice")
    return pairs


def _percentages(field: str, text: str) -> tuple[int, ...]:
    values = []
    for token in text.split():
        if not token.endswith("%"):
            raise Unfit(f"{field}: {token!r} is not a percentage")
        values.append(integer(token[:-1], field))
    if not values:
        raise Unfit(f"{field} has no values")
    return tuple(values)


def _qos_field(key: str, value: str) -> object:
    if key == "PRIO_MAP":
        return {priority: integer(tc, "PRIO_MAP traffic class") for priority, tc in _pairs(key, value)}
    if key == "TSA_MAP":
        pairs = _pairs(key, value)
        if any(tsa not in TSA for _, tsa in pairs):
            raise Unfit(f"TSA_MAP: a selection other than {' or '.join(TSA)}")
        return dict(pairs)
    if key == "PFC enabled":
        if value.lower() == "none":
            return frozenset()
        return frozenset(integer(word, "PFC enabled priority") for word in value.replace(",", " ").split())
    return _percentages(key, value)


@dataclass
class _App:
    index: int
    lines: list[Line] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)
    broken: bool = False


def _app_entry(reading: Reading, app: _App) -> Optional[AppEntry]:
    """The entry of one APP#n block; None (its lines unread) when it lacks a line or one was not understood."""
    protocols = [key for key in APP_PROTOCOLS if key in app.values]
    try:
        if app.broken or "Priority" not in app.values or "Sel" not in app.values or len(protocols) != 1:
            raise Unfit(f"APP#{app.index}: expected Priority, Sel and one protocol line")
        return AppEntry(app.index, integer(app.values["Priority"], "Priority"), integer(app.values["Sel"], "Sel"),
                        APP_PROTOCOLS[protocols[0]], integer(app.values[protocols[0]], protocols[0]))
    except Unfit as exc:
        for line in app.lines:
            if reading.outcome(line) != "unread":
                reading.unread(line, str(exc), f"APP#{app.index}")
        return None


@parser(QOS_TOOL, "niccli qos --ets --show (or getqos): PRIO_MAP, TC bandwidth, TSA, PFC, APP TLVs")
def parse_niccli_qos(text: str) -> Parsed[NicQos]:
    reading = Reading(QOS_TOOL, text)
    refuse_unfinished_line(reading, text)
    values: dict[str, object] = {}
    sections: set[str] = set()
    apps: list[_App] = []
    current: Optional[_App] = None  # the APP#n block being read
    for line in reading.content():
        tlv, app = TLV.match(line.stripped), APP_HEADER.match(line.stripped)
        key, sep, value = line.stripped.partition(":")
        key = key.strip().replace("TSA MAP", "TSA_MAP")
        if tlv or BANNER.match(line.stripped):
            sections.update([tlv.group(1)] if tlv else [])
            current = None
            reading.known(line)
        elif app and "APP" in sections:
            current = _App(int(app.group(1)), [line])
            apps.append(current)
            reading.used(line)
        elif sep and key in QOS_FIELDS:
            current = None  # "TC Rate Limit" follows the APP TLV
            with reading.row(line, scope=key):
                if key in values:
                    raise Unfit(f"{key} given twice")
                values[key] = _qos_field(key, value.strip())
        elif current is not None and sep and (key in ("Priority", "Sel") or key in APP_PROTOCOLS):
            current.lines.append(line)
            if key in current.values:
                current.broken = True
                reading.unread(line, f"{key} given twice", f"APP#{current.index}")
            else:
                current.values[key] = value.strip()
                reading.used(line)
        else:
            if current is not None:
                current.broken = True
            reading.unread(line, "not a line of niccli's QoS TLVs", f"APP#{current.index}" if current else "")
    entries = [_app_entry(reading, app) for app in apps]
    incomplete = any(entry is None for entry in entries) or any(u.scope.startswith("APP#") for u in reading.unread_lines())
    qos = NicQos(
        prio_map=values.get("PRIO_MAP"),  # type: ignore[arg-type]
        tc_bandwidth=values.get("TC Bandwidth"),  # type: ignore[arg-type]
        tsa_map=values.get("TSA_MAP"),  # type: ignore[arg-type]
        pfc_enabled=values.get("PFC enabled"),  # type: ignore[arg-type]
        app=tuple(entry for entry in entries if entry is not None) if "APP" in sections else None,
        tc_rate_limit=values.get("TC Rate Limit"),  # type: ignore[arg-type]
        app_incomplete=incomplete,
    )
    return reading.done(qos, nothing="no IEEE 8021QAZ TLV field read")


@dataclass(frozen=True)
class PriorityQueue:
    priority: int
    traffic_class: int
    hw_queue: int


@dataclass(frozen=True)
class Pri2Cos:
    """``qos --listmap --pri2cos``: traffic class and hardware queue of every priority; ``complete`` is False when
    a line of the table was not understood (a priority missing from ``entries`` is then not known)."""

    base_queue: Optional[int]
    entries: tuple[PriorityQueue, ...]
    complete: bool = True

    def traffic_class(self, priority: int) -> Optional[int]:
        return next((e.traffic_class for e in self.entries if e.priority == priority), None)


PRI2COS_HEADER = re.compile(r"^Priority\s+TC\s+HW Queue ID$")
BASE_QUEUE = re.compile(r"^Base Queue is (\d+) for port (\d+)\.$")


@parser(PRI2COS_TOOL, "niccli qos --listmap --pri2cos: priority -> traffic class and hardware queue")
def parse_niccli_pri2cos(text: str) -> Parsed[Pri2Cos]:
    reading = Reading(PRI2COS_TOOL, text)
    refuse_unfinished_line(reading, text)
    base: Optional[int] = None
    entries: list[PriorityQueue] = []
    header = False
    for line in reading.content():
        base_queue = BASE_QUEUE.match(line.words)
        if base_queue and base is None:
            base = integer(base_queue.group(1), "base queue")
            reading.used(line)
        elif PRI2COS_HEADER.match(line.stripped) or set(line.stripped) <= {"-"} or BANNER.match(line.stripped):
            header = header or bool(PRI2COS_HEADER.match(line.stripped))
            reading.known(line)
        elif not header:
            reading.unread(line, "before the 'Priority TC HW Queue ID' header")
        else:
            with reading.row(line, scope=first_word(line)):
                words = line.stripped.split()
                if len(words) != 3:
                    raise Unfit("expected '<priority> <tc> <queue>'")
                entry = PriorityQueue(*(integer(word, name) for word, name in zip(words, ("priority", "TC", "queue"))))
                if any(e.priority == entry.priority for e in entries):
                    raise Unfit(f"priority {entry.priority} listed twice")
                entries.append(entry)
    complete = header and not any(u.scope.isdigit() for u in reading.unread_lines())  # no row left unread
    return reading.done(Pri2Cos(base, tuple(entries), complete), nothing="no '<priority> <tc> <queue>' row")


@dataclass(frozen=True)
class Dscp2Prio:
    """``qos --dscp2prio``: DSCP value -> priority (empty when nothing is mapped); ``complete`` is False when a
    line was not understood (a DSCP missing from ``mapping`` is then not known)."""

    mapping: dict[int, int]
    complete: bool = True


DSCP2PRIO_HEADER = re.compile(r"^dscp2prio mapping:$", re.IGNORECASE)
DSCP2PRIO_LINE = re.compile(r"^priority:\s*(\d+)\s+dscp:\s*(\d+(?:\s*,\s*\d+)*)\s*,?$")


@parser(DSCP2PRIO_TOOL, "niccli qos --dscp2prio: DSCP -> priority")
def parse_niccli_dscp2prio(text: str) -> Parsed[Dscp2Prio]:
    """``dscp2prio mapping:`` and one ``priority:<n> dscp:<d>,<d>,...`` line per priority. The header alone is the
    answer of a NIC that maps nothing (the header is the fact then)."""
    reading = Reading(DSCP2PRIO_TOOL, text)
    refuse_unfinished_line(reading, text)
    mapping: dict[int, int] = {}
    header: Optional[Line] = None
    for line in reading.content():
        match = DSCP2PRIO_LINE.match(line.stripped)
        if DSCP2PRIO_HEADER.match(line.stripped) and header is None:
            header = line
            reading.known(line)
        elif BANNER.match(line.stripped):
            reading.known(line)
        elif match:
            with reading.row(line, scope=f"priority {match.group(1)}"):
                priority = integer(match.group(1), "priority")
                dscps = [integer(value, "dscp") for value in match.group(2).split(",")]
                if any(dscp in mapping for dscp in dscps):
                    raise Unfit("a DSCP value mapped twice")
                mapping.update({dscp: priority for dscp in dscps})
        else:
            reading.unread(line, "expected 'priority:<n> dscp:<n>,...'")
    complete = not any(re.search(r"priority|dscp", u.text, re.IGNORECASE) for u in reading.unread_lines())
    if header is not None and not mapping and complete:
        reading.used(header)  # nothing mapped: the header alone is the answer
    return reading.done(Dscp2Prio(mapping, complete), nothing="no 'dscp2prio mapping:' header and no 'priority:<n> dscp:<n>' line")


@dataclass(frozen=True)
class NvmOption:
    """``nvm --getoption NAME``: the value as printed, and what it means when that is unambiguous."""

    name: str
    value: str
    enabled: Optional[bool]  # True/Enabled -> True, False/Disabled -> False, otherwise None
    number: Optional[int]  # "1" or "Enabled (1)" -> 1, otherwise None


NVM_LINE = re.compile(r"^(\w+)\s*=\s*(\S.*)$")


@parser(NVM_TOOL, "niccli nvm --getoption NAME: 'name = value'")
def parse_niccli_nvm_option(text: str) -> Parsed[NvmOption]:
    """The one ``name = value`` line; niccli's banner is known, a line of another form unread. Two assignments
    (two options, or two ports' answers) are read from neither."""
    reading = Reading(NVM_TOOL, text)
    refuse_unfinished_line(reading, text)
    found: list[tuple[Line, str, str]] = []
    for line in reading.content():
        match = NVM_LINE.match(line.stripped)
        if BANNER.match(line.stripped):
            reading.known(line)
        elif match:
            found.append((line, match.group(1), match.group(2).strip()))
            reading.used(line)
        else:
            reading.unread(line, "expected 'name = value'")
    if len(found) > 1:
        for line, name, _ in found:
            reading.unread(line, "one of several 'name = value' lines: neither is read", name)
    if len(found) != 1:
        return reading.done(NvmOption("", "", None, None), nothing="expected one 'name = value' line")
    _, name, value = found[0]
    word = value.split("(")[0].strip().lower()
    enabled = {"true": True, "enabled": True, "false": False, "disabled": False}.get(word)
    number = re.fullmatch(r"(?:.*\()?\s*(-?\d+)\s*\)?", value)
    return reading.done(NvmOption(name=name, value=value, enabled=enabled, number=int(number.group(1)) if number else None))


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
LIST_HEADER = re.compile(r"^BoardId(\(Rev\))?\s+MAC Address\s+FwVersion\s+PCIAddr\s+Type\s+Mode$")
MAC = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")
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


def _table_row(match: re.Match[str]) -> NicListEntry:
    words = match.group(2).split()
    pci = _table_pci(words[3]) if len(words) == 6 else None
    if pci is None or not MAC.match(words[1]):
        raise Unfit("expected '<n>) <board> <mac> <firmware> <pci> <type> <mode>'")
    board, mac, firmware, _, kind, mode = words
    return NicListEntry(int(match.group(1)), board, mac.lower(), firmware, pci, kind, mode)


def _block(index: int, title: str, fields: dict[str, str]) -> NicListEntry:
    missing = [name for name, key in BLOCK_FIELDS.items() if key not in fields]
    if missing:
        raise Unfit(f"device {index}: no {', '.join(missing)} line (output cut?)")
    if not is_bdf(fields["pci"]) or not MAC.match(fields["mac"]):
        raise Unfit(f"device {index}: PCI Address {fields['pci']!r} or MAC Address {fields['mac']!r} not of their form")
    port = re.search(r"\(([^()]*)\)\s*$", title)
    board = title[: port.start()].strip() if port else title.strip()
    return NicListEntry(index, board, fields["mac"].lower(), None, normalize_bdf(fields["pci"]), None, None,
                        fields["interface"], port.group(1) if port else None)


@parser(LIST_TOOL, "niccli --list / --list_devices: index, board, MAC, PCI address (firmware or interface) of each NIC")
def parse_niccli_list(text: str) -> Parsed[tuple[NicListEntry, ...]]:
    """A table row per NIC (``--list``), or per NIC a title line and its indented ``Key : value`` lines
    (``--list_devices``, niccli 234 and later). A row or block of another form costs only its own NIC."""
    reading = Reading(LIST_TOOL, text)
    refuse_unfinished_line(reading, text)
    entries: list[NicListEntry] = []
    pending: list[tuple[Line, re.Match[str], dict[str, str], list[Line]]] = []
    for line in reading.content():
        match = LIST_ROW.match(line.text)
        key, sep, value = line.stripped.partition(":")
        if match:
            pending.append((line, match, {}, []))
        elif pending and sep and key.strip() in BLOCK_FIELDS and line.indent:
            pending[-1][2][BLOCK_FIELDS[key.strip()]] = value.strip()
            pending[-1][3].append(line)
        elif BANNER.match(line.stripped) or LIST_HEADER.match(line.stripped):
            reading.known(line)
        else:
            reading.unread(line, "expected '<n>) <board> ...' or a device's 'Key : value' line")
    for line, match, fields, lines in pending:
        try:
            entry = _block(int(match.group(1)), match.group(2), fields) if fields else _table_row(match)
        except Unfit as exc:
            for each in (line, *lines):
                reading.unread(each, str(exc), match.group(1))
            continue
        entries.append(entry)
        for each in (line, *lines):
            reading.used(each)
    return reading.done(tuple(entries), nothing="no '<n>) <board> ...' row")
