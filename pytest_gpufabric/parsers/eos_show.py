"""Arista EOS show commands: ``show interfaces | json`` (state, MTU, bandwidth, discards, pause frames),
``show priority-flow-control counters`` and ``show priority-flow-control`` (watchdog), as S3 prints them."""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, clean_text, fail
from pytest_gpufabric.switches.facts import PortCounters, PortStatus, Watchdog

INTERFACES_TOOL = "eos-interfaces-json"
PFC_COUNTERS_TOOL = "eos-pfc-counters"
WATCHDOG_TOOL = "eos-pfc-watchdog"
_COUNTER_ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)$")
_WATCHDOG_LINE = re.compile(r"^The PFC watchdog (timeout|recovery-time|polling-interval|action) is (\S+)")


def eos_port_name(short: str) -> str:
    """``Et3/1/1`` -> ``Ethernet3/1/1`` (EOS abbreviates interface names in counter tables)."""
    return "Ethernet" + short[2:] if re.match(r"^Et\d", short) else short


def _number(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(INTERFACES_TOOL, f"{what}: expected a number, found {value!r}")
    return int(value)


@parser(INTERFACES_TOOL, "show interfaces | json (EOS): oper state, MTU, bandwidth, discards per interface")
def parse_interfaces_json(text: str) -> dict[str, tuple[PortStatus, PortCounters]]:
    try:
        data = json.loads(clean_text(INTERFACES_TOOL, text))
    except json.JSONDecodeError as exc:
        fail(INTERFACES_TOOL, f"not JSON ({exc.msg} at line {exc.lineno})")
    interfaces = data.get("interfaces") if isinstance(data, dict) else None
    if not isinstance(interfaces, dict) or not interfaces:
        fail(INTERFACES_TOOL, "no `interfaces` object")
    ports = {}
    for name, entry in interfaces.items():
        if not isinstance(entry, dict):
            fail(INTERFACES_TOOL, f"{name}: expected an object")
        counters = entry.get("interfaceCounters") or {}
        if not isinstance(counters, dict):
            fail(INTERFACES_TOOL, f"{name}: interfaceCounters is not an object")
        bandwidth = _number(entry.get("bandwidth"), f"{name} bandwidth")
        up = entry.get("interfaceStatus") == "connected" and entry.get("lineProtocolStatus") == "up"
        status = PortStatus(name, up, bandwidth / 1e9 if bandwidth else None, _number(entry.get("mtu"), f"{name} mtu"))
        ports[name] = (status, PortCounters(name, in_discards=_number(counters.get("inDiscards"), f"{name} inDiscards"),
                                            out_discards=_number(counters.get("outDiscards"), f"{name} outDiscards")))
    return ports


@parser(PFC_COUNTERS_TOOL, "show priority-flow-control counters (EOS): PFC frames received and sent per port")
def parse_pfc_counters(text: str) -> dict[str, PortCounters]:
    lines = clean_lines(PFC_COUNTERS_TOOL, text)
    header = next((i for i, line in enumerate(lines) if line.split()[:3] == ["Port", "RxPfc", "TxPfc"]), None)
    if header is None:
        fail(PFC_COUNTERS_TOOL, "no 'Port RxPfc TxPfc' header")
    ports = {}
    for line in lines[header + 1:]:
        match = _COUNTER_ROW.match(line.strip())
        if match:
            name = eos_port_name(match.group(1))
            ports[name] = PortCounters(name, pfc_rx=int(match.group(2)), pfc_tx=int(match.group(3)))
    if not ports:
        fail(PFC_COUNTERS_TOOL, "no port rows under the header")
    return ports


@parser(WATCHDOG_TOOL, "show priority-flow-control (EOS): PFC watchdog timeout, recovery, polling, action")
def parse_pfc_watchdog(text: str) -> Watchdog:
    found = {}
    for line in clean_lines(WATCHDOG_TOOL, text):
        match = _WATCHDOG_LINE.match(line.strip().removeprefix("arista#").strip())
        if match:
            found[match.group(1)] = match.group(2)
    if not found:
        fail(WATCHDOG_TOOL, "no 'The PFC watchdog ... is ...' lines")
    seconds = {k: float(v) * 1000 for k, v in found.items() if k != "action" and re.fullmatch(r"\d+(\.\d+)?", v)}
    return Watchdog("action" in found or "timeout" in found, found.get("action"), seconds.get("timeout"),
                    seconds.get("recovery-time"), seconds.get("polling-interval"))
