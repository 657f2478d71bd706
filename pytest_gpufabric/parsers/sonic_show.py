"""SONiC ``show`` tables: interfaces status, interfaces counters, PFC counters per priority, queue counters,
PFC watchdog statistics per queue and its configuration, as ``tabulate`` prints them (the parsing rule's
dash-underlined tables: a row that does not fit its header is refused, never shifted).

Multi-ASIC switches print one table per namespace (``For namespace asic0:`` or ``Namespace asic0`` before it);
counters print ``N/A`` where the ASIC has none and thousands separators (``1,200``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, count, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Table, dash_tables, first_word, named_tables
from pytest_gpufabric.switches.facts import PortCounters, PortStatus, QueueWatchdog, Watchdog

STATUS_TOOL = "sonic-interfaces-status"
COUNTERS_TOOL = "sonic-interfaces-counters"
PFC_TOOL = "sonic-pfc-counters"
QUEUE_TOOL = "sonic-queue-counters"
PFCWD_TOOL = "sonic-pfcwd-stats"
PFCWD_CONFIG_TOOL = "sonic-pfcwd-config"
_SPEED = re.compile(r"^(\d+(?:\.\d+)?)([MGT])$")
_SPEED_UNIT_GBPS = {"M": 0.001, "G": 1.0, "T": 1000.0}
_OPER = {"up": True, "down": False, "N/A": False}  # N/A: a port channel without members, not up
# Lines SONiC prints around its tables: namespace banners, the state of the counters, pfcwd's own notes.
_KNOWN = re.compile(
    r"^(For namespace ?\S*:|Namespace \S+:?|Last cached time was .*|Time Since Counters Last Cleared.*"
    r"|\S+ Last cached time was .*|The rates are calculated within \d+ seconds? period|Changed polling interval to \d+ms( on \S+)?|BIG_RED_SWITCH status is \w+( on \S+)?"
    r"|\S+: Cleared counters|Reminder: .*|(\S+@\S+:\S*)?[#$] ?(sudo )?(show|pfcstat|portstat|pfcwd|queuestat|intfutil|\./\w+)\b.*)$"
)
_QUEUE_KEY = re.compile(r"^(\S+):(\d+)$")
_PRIORITY_COLUMN = re.compile(r"^PFC([0-7])$")


def _known_lines(reading: Reading) -> None:
    for line in reading.content():
        if _KNOWN.match(line.words):
            reading.known(line)


_MULTIWORD = ("Port Rx", "Port Tx", "STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP", "TX LAST OK/DROP",
              "RX LAST OK/DROP", "DETECTION TIME", "RESTORATION TIME", "Asym PFC")


def _tables_with(reading: Reading, *columns: str) -> list[Table]:
    """The tables having every one of ``columns``: dash-underlined, or (a capture that lost its dash line) named
    by the header's words; the other tables' rows are left unread. A table of this command's header without any
    row is understood (the command has nothing to show: a watchdog not started, a port without queues), so its
    header is used: the output is not refused, its facts are empty."""
    _known_lines(reading)
    tables = [table for table in dash_tables(reading) if set(columns) <= set(table.header.names)]
    if columns:
        tables += named_tables(reading, columns, _MULTIWORD)
    if tables and not any(table.rows for table in tables):
        reading.used(tables[0].heading[0])
    return tables


def _rows(reading: Reading, tables: list[Table]) -> Iterator[tuple[Line, dict[str, str], Table]]:
    """Each row of ``tables`` that fits its header, with its cells; a row that does not is unread."""
    for table in tables:
        for line in table.rows:
            try:
                cells = table.header.cells(line)
            except Unfit as exc:
                reading.unread(line, str(exc), first_word(line))
                continue
            yield line, cells, table


def _speed_gbps(cell: str) -> float | None:
    match = _SPEED.match(cell.strip())
    if match:
        return float(match.group(1)) * _SPEED_UNIT_GBPS[match.group(2)]
    if cell.strip() == "N/A":
        return None
    raise Unfit(f"Speed: expected e.g. 400G, found {cell.strip()!r}")


def _port(cells: dict[str, str], column: str) -> str:
    name = cells[column]
    if not name or " " in name:
        raise Unfit(f"{column}: expected a port name, found {name!r}")
    return name


@parser(STATUS_TOOL, "show interfaces status (SONiC): oper state, speed, MTU, FEC per port")
def parse_interfaces_status(text: str) -> Parsed[dict[str, PortStatus]]:
    reading = Reading(STATUS_TOOL, text)
    ports: dict[str, PortStatus] = {}
    for line, cells, _ in _rows(reading, _tables_with(reading, "Interface", "Oper")):
        with reading.row(line, first_word(line)):
            name = _port(cells, "Interface")
            if cells["Oper"] not in _OPER:
                raise Unfit(f"Oper: expected up, down or N/A, found {cells['Oper']!r}")
            mtu = count(cells["MTU"], "MTU") if "MTU" in cells else None
            fec = cells.get("FEC", "N/A")  # older releases print no FEC column
            speed = _speed_gbps(cells["Speed"]) if "Speed" in cells else None
            ports[name] = PortStatus(name, _OPER[cells["Oper"]], speed, mtu, None if fec == "N/A" else fec)
    return reading.done(ports, nothing="no interface row under an 'Interface ... Oper' header")


@parser(COUNTERS_TOOL, "show interfaces counters (SONiC): RX_DRP and TX_DRP per port")
def parse_interfaces_counters(text: str) -> Parsed[dict[str, PortCounters]]:
    reading = Reading(COUNTERS_TOOL, text)
    ports: dict[str, PortCounters] = {}
    for line, cells, _ in _rows(reading, _tables_with(reading, "IFACE", "RX_DRP", "TX_DRP")):
        with reading.row(line, first_word(line)):
            name = _port(cells, "IFACE")
            ports[name] = PortCounters(name, in_discards=count(cells["RX_DRP"], "RX_DRP"),
                                       out_discards=count(cells["TX_DRP"], "TX_DRP"))
    return reading.done(ports, nothing="no port row under an 'IFACE ... RX_DRP ... TX_DRP' header")


def _per_priority(cells: dict[str, str], columns: tuple[str, ...]) -> dict[int, int]:
    found = {}
    for column in columns:
        match = _PRIORITY_COLUMN.match(column)
        value = count(cells[column], column) if match else None
        if match and value is not None:
            found[int(match.group(1))] = value
    return found


@parser(PFC_TOOL, "show pfc counters (SONiC): PFC frames received and sent per port and priority")
def parse_pfc_counters(text: str) -> Parsed[dict[str, PortCounters]]:
    reading = Reading(PFC_TOOL, text)
    rx: dict[str, dict[int, int]] = {}
    tx: dict[str, dict[int, int]] = {}
    tables = _tables_with(reading)
    for direction, into in (("Port Rx", rx), ("Port Tx", tx)):
        for line, cells, table in _rows(reading, [t for t in tables if direction in t.header.names]):
            with reading.row(line, first_word(line)):
                name = _port(cells, direction)
                into[name] = _per_priority(cells, table.header.names)
    ports = {}
    for name in dict.fromkeys([*rx, *tx]):
        ports[name] = PortCounters(
            name, pfc_rx=sum(rx[name].values()) if rx.get(name) else None,
            pfc_tx=sum(tx[name].values()) if tx.get(name) else None,
            pfc_rx_priorities=rx.get(name, {}), pfc_tx_priorities=tx.get(name, {}))
    return reading.done(ports, nothing="no port row under a 'Port Rx' or 'Port Tx' header")


def _queue_label(cell: str, column: str) -> str:
    pattern = r"(UC|MC|ALL)?\d+" if column == "TxQ" else r"VOQ\d+"
    if not re.fullmatch(pattern, cell):
        raise Unfit(f"{column}: expected e.g. {'UC3' if column == 'TxQ' else 'VOQ3'}, found {cell!r}")
    return cell


@parser(QUEUE_TOOL, "show queue counters (SONiC): packets and drops per port and egress queue (or VOQ, `--voq`)")
def parse_queue_counters(text: str) -> Parsed[dict[str, PortCounters]]:
    """Drops per port and queue; the VOQ form (``--voq``, a chassis) keys its rows by the system port as printed
    (``host|asic0|Ethernet0``: the port of any linecard, never taken for a local port of the same name)."""
    reading = Reading(QUEUE_TOOL, text)
    drops: dict[str, dict[str, int]] = {}
    for line, cells, table in _rows(reading, _tables_with(reading, "Port", "Drop/pkts")):
        column = next((c for c in ("TxQ", "Voq") if c in table.header.names), None)
        with reading.row(line, first_word(line)):
            if column is None:
                raise Unfit("a table with neither a TxQ nor a Voq column")
            name = cells["Port"] if column == "Voq" else _port(cells, "Port")
            if not name or " " in name:
                raise Unfit(f"Port: expected a port name, found {name!r}")
            queue = _queue_label(cells[column], column)
            dropped = count(cells["Drop/pkts"], "Drop/pkts")
            if dropped is not None:
                drops.setdefault(name, {})[queue] = dropped
            else:
                drops.setdefault(name, {})
    ports = {name: PortCounters(name, queue_drops=queues) for name, queues in drops.items()}
    return reading.done(ports, nothing="no row under a 'Port TxQ|Voq ... Drop/pkts' header")


def _pair(cell: str, what: str) -> tuple[int | None, int | None]:
    """``1/0`` -> (1, 0); ``N/A`` -> (None, None)."""
    if cell.strip() in ("N/A", ""):
        return None, None
    first, slash, second = cell.partition("/")
    if not slash:
        raise Unfit(f"{what}: expected two counts as A/B, found {cell!r}")
    return count(first, what), count(second, what)


@parser(PFCWD_TOOL, "show pfcwd stats (SONiC): per port and queue: status, storms detected/restored, TX/RX drops")
def parse_pfcwd_stats(text: str) -> Parsed[dict[str, PortCounters]]:
    reading = Reading(PFCWD_TOOL, text)
    queues: dict[str, dict[str, QueueWatchdog]] = {}
    for line, cells, _ in _rows(reading, _tables_with(reading, "QUEUE", "STATUS", "STORM DETECTED/RESTORED")):
        with reading.row(line, first_word(line).split(":")[0]):
            key = _QUEUE_KEY.match(cells["QUEUE"])
            if not key:
                raise Unfit(f"QUEUE: expected PORT:QUEUE, found {cells['QUEUE']!r}")
            if not re.fullmatch(r"[A-Za-z/_-]+", cells["STATUS"]):
                raise Unfit(f"STATUS: expected a word, found {cells['STATUS']!r}")
            detected, restored = _pair(cells["STORM DETECTED/RESTORED"], "STORM DETECTED/RESTORED")
            tx_ok, tx_drop = _pair(cells.get("TX OK/DROP", ""), "TX OK/DROP")
            rx_ok, rx_drop = _pair(cells.get("RX OK/DROP", ""), "RX OK/DROP")
            statistics = QueueWatchdog(cells["STATUS"], detected, restored, tx_ok, tx_drop, rx_ok, rx_drop)
            queues.setdefault(key.group(1), {})[key.group(2)] = statistics
    ports = {name: PortCounters(name, watchdog=per_queue) for name, per_queue in queues.items()}
    return reading.done(ports, nothing="no PORT:QUEUE row under a 'QUEUE STATUS STORM DETECTED/RESTORED' header")


def _milliseconds(cell: str, what: str) -> float:
    return float(integer(cell, what))


@parser(PFCWD_CONFIG_TOOL, "show pfcwd config (SONiC): the PFC watchdog's action and times per port")
def parse_pfcwd_config(text: str) -> Parsed[dict[str, Watchdog]]:
    reading = Reading(PFCWD_CONFIG_TOOL, text)
    polling: float | None = None
    for line in reading.content():
        match = re.fullmatch(r"Changed polling interval to (\d+)ms( on \S+)?", line.words)
        if match:
            polling = float(match.group(1))
    ports: dict[str, Watchdog] = {}
    for line, cells, _ in _rows(reading, _tables_with(reading, "PORT", "ACTION", "DETECTION TIME", "RESTORATION TIME")):
        with reading.row(line, first_word(line)):
            name = _port(cells, "PORT")
            if not re.fullmatch(r"[a-z]+", cells["ACTION"]):
                raise Unfit(f"ACTION: expected e.g. drop, found {cells['ACTION']!r}")
            ports[name] = Watchdog(True, cells["ACTION"], _milliseconds(cells["DETECTION TIME"], "DETECTION TIME"),
                                   _milliseconds(cells["RESTORATION TIME"], "RESTORATION TIME"), polling)
    return reading.done(ports, nothing="no port row under a 'PORT ACTION DETECTION TIME RESTORATION TIME' header")
