"""SONiC ``show`` tables: interfaces status, interfaces counters, PFC counters, PFC watchdog statistics."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.columns import Table, count, read_tables
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import fail
from pytest_gpufabric.switches.facts import PortCounters, PortStatus

STATUS_TOOL = "sonic-interfaces-status"
COUNTERS_TOOL = "sonic-interfaces-counters"
PFC_TOOL = "sonic-pfc-counters"
PFCWD_TOOL = "sonic-pfcwd-stats"
_SPEED = re.compile(r"^(\d+(?:\.\d+)?)([MGT])$")
_SPEED_UNIT_GBPS = {"M": 0.001, "G": 1.0, "T": 1000.0}


def _table_with(tool: str, text: str, column: str) -> Table:
    for table in read_tables(tool, text):
        if column in table.columns:
            return table
    fail(tool, f"no table with a {column!r} column")


def _speed_gbps(cell: str) -> float | None:
    match = _SPEED.match(cell.strip())
    return float(match.group(1)) * _SPEED_UNIT_GBPS[match.group(2)] if match else None


@parser(STATUS_TOOL, "show interfaces status (SONiC): oper state, speed, MTU, FEC per port")
def parse_interfaces_status(text: str) -> dict[str, PortStatus]:
    table = _table_with(STATUS_TOOL, text, "Oper")
    ports = {}
    for row in table.rows:
        name = row.get("Interface", "")
        if not name:
            continue
        mtu = row.get("MTU", "")
        fec = row.get("FEC", "N/A")
        ports[name] = PortStatus(name, row.get("Oper") == "up", _speed_gbps(row.get("Speed", "")),
                                 int(mtu) if mtu.isdigit() else None, None if fec == "N/A" else fec)
    if not ports:
        fail(STATUS_TOOL, "no interface rows")
    return ports


@parser(COUNTERS_TOOL, "show interfaces counters (SONiC): RX_DRP and TX_DRP per port")
def parse_interfaces_counters(text: str) -> dict[str, PortCounters]:
    table = _table_with(COUNTERS_TOOL, text, "RX_DRP")
    ports = {}
    for row in table.rows:
        name = row.get("IFACE", "")
        if name:
            ports[name] = PortCounters(name, in_discards=count(COUNTERS_TOOL, row.get("RX_DRP", ""), f"{name} RX_DRP"),
                                       out_discards=count(COUNTERS_TOOL, row.get("TX_DRP", ""), f"{name} TX_DRP"))
    if not ports:
        fail(COUNTERS_TOOL, "no interface rows")
    return ports


def _pfc_totals(table: Table, port_column: str) -> dict[str, int]:
    totals = {}
    for row in table.rows:
        name = row.get(port_column, "")
        values = [count(PFC_TOOL, row.get(f"PFC{p}", ""), f"{name} PFC{p}") for p in range(8)]
        totals[name] = sum(v for v in values if v is not None)
    return totals


@parser(PFC_TOOL, "show pfc counters (SONiC): PFC frames received and sent per port (all priorities)")
def parse_pfc_counters(text: str) -> dict[str, PortCounters]:
    tables = read_tables(PFC_TOOL, text)
    rx = next((t for t in tables if "Port Rx" in t.columns), None)
    tx = next((t for t in tables if "Port Tx" in t.columns), None)
    if rx is None or tx is None:
        fail(PFC_TOOL, "expected a 'Port Rx' and a 'Port Tx' table")
    rx_totals, tx_totals = _pfc_totals(rx, "Port Rx"), _pfc_totals(tx, "Port Tx")
    return {name: PortCounters(name, pfc_rx=rx_totals[name], pfc_tx=tx_totals.get(name)) for name in rx_totals}


@parser(PFCWD_TOOL, "show pfcwd stats (SONiC): PFC storms detected per port")
def parse_pfcwd_stats(text: str) -> dict[str, PortCounters]:
    table = _table_with(PFCWD_TOOL, text, "STORM DETECTED/RESTORED")
    storms: dict[str, int] = {}
    for row in table.rows:
        port, _, queue = row.get("QUEUE", "").partition(":")
        detected, slash, _ = row.get("STORM DETECTED/RESTORED", "").partition("/")
        if not port or not queue.isdigit() or not slash:
            fail(PFCWD_TOOL, f"unexpected row {row}")
        storms[port] = storms.get(port, 0) + (count(PFCWD_TOOL, detected, f"{port} storms detected") or 0)
    return {name: PortCounters(name, watchdog_storms=value) for name, value in storms.items()}
