"""Arista EOS show commands, on the parsing rule (parsers/reading.py): ``show interfaces | json`` and its text form
(state, MTU in both spellings, bandwidth, discards, pause frames), ``show priority-flow-control counters`` and
``show priority-flow-control`` (the watchdog), as EOS prints them."""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, count, decimal, line_of
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Header, flattened_cells, header_from_names, is_flattened
from pytest_gpufabric.parsers.textutil import fail
from pytest_gpufabric.switches.facts import PortCounters, PortStatus, Watchdog

INTERFACES_TOOL = "eos-interfaces-json"
INTERFACES_TEXT_TOOL = "eos-interfaces"
PFC_COUNTERS_TOOL = "eos-pfc-counters"
WATCHDOG_TOOL = "eos-pfc-watchdog"
_PROMPT_ECHO = re.compile(r"^\S+[#>] ?show \S.*$")  # the prompt and command a pasted capture starts with
_WATCHDOG_LINE = re.compile(r"^The PFC watchdog (timeout|recovery-time|polling-interval) is (\d+(?:\.\d+)?) second\(s\)"
                            r"(?: \((auto|forced)\))?$")
_WATCHDOG_ACTION = re.compile(r"^The PFC watchdog action is (drop|no-drop|errdisable)$")
_WATCHDOG_KNOWN = re.compile(
    r"^(The hardware supports PFC on priorities [\d ]+|PFC receive processing is (enabled|disabled) on priorities[\d ]*"
    r"|The PFC watchdog override action drop is (true|false)|Global PFC : (Enabled|Disabled)"
    r"|E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog (Active|Enabled))$"
)
InterfaceFacts = dict[str, tuple[PortStatus, PortCounters]]


def eos_port_name(short: str) -> str:
    """``Et3/1/1`` -> ``Ethernet3/1/1`` (EOS abbreviates interface names in counter tables)."""
    return "Ethernet" + short[2:] if re.match(r"^Et\d", short) else short


def _known_echo(reading: Reading) -> None:
    for line in reading.content():
        if _PROMPT_ECHO.match(line.words):
            reading.known(line)


def _number(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Unfit(f"{what}: expected a number, found {value!r}")
    return int(value)


@parser(INTERFACES_TOOL, "show interfaces | json (EOS): oper state, MTU, bandwidth, discards per interface")
def parse_interfaces_json(text: str) -> Parsed[InterfaceFacts]:
    reading = Reading(INTERFACES_TOOL, text)
    try:
        data = json.loads("\n".join(line.text for line in reading.lines))
    except json.JSONDecodeError as exc:
        fail(INTERFACES_TOOL, f"not JSON ({exc.msg} at line {exc.lineno})")
    interfaces = data.get("interfaces") if isinstance(data, dict) else None
    if not isinstance(interfaces, dict) or not interfaces:
        fail(INTERFACES_TOOL, "no `interfaces` object")
    reading.rest_known()
    ports: InterfaceFacts = {}
    for name, entry in interfaces.items():
        line = line_of(reading, f'"{name}"')
        with reading.row(line, name):
            if not isinstance(entry, dict):
                raise Unfit(f"{name}: expected an object")
            counters = entry.get("interfaceCounters") or {}
            if not isinstance(counters, dict):
                raise Unfit(f"{name}: interfaceCounters is not an object")
            bandwidth = _number(entry.get("bandwidth"), f"{name} bandwidth")
            up = entry.get("interfaceStatus") == "connected" and entry.get("lineProtocolStatus") == "up"
            status = PortStatus(name, up, bandwidth / 1e9 if bandwidth else None, _number(entry.get("mtu"), f"{name} mtu"))
            ports[name] = (status, PortCounters(name, in_discards=_number(counters.get("inDiscards"), f"{name} inDiscards"),
                                                out_discards=_number(counters.get("outDiscards"), f"{name} outDiscards")))
    return reading.done(ports)


_TEXT_HEAD = re.compile(r"^(\S+) is (up|down|administratively down), line protocol is (\w+)(?: \((\S+)\))?$")
_TEXT_MTU = re.compile(r"^(?:IP|Ethernet) MTU (\d+) bytes ?(?:\(default\))?(?:, BW (\d+) kbit)?$")
_TEXT_SPEED = re.compile(r"^(Full|Half|Unknown)-duplex, (\d+(?:\.\d+)?)([MGT])b/s(?:, .*)?$|^(Full|Half|Unknown)-duplex, Unconfigured.*$")
_TEXT_DISCARDS = re.compile(r"^\d+ (?:input errors|output errors|late collision), .*?\b(\d+) (input|output) discards$")
_TEXT_PAUSE = re.compile(r"^(\d+) PAUSE (input|output)$")
_TEXT_KNOWN = re.compile(
    r"^(Hardware is .+|Internet address is .+|Broadcast address is .+|Address determined by .+|Description: .*"
    r"|(Up|Down) \d.+|Loopback Mode : .+|\d+ link status changes since last clear|Last clearing of .+"
    r"|\d+ (seconds|minutes) (input|output) rate .+|\d+ packets (input|output), \d+ bytes|Received \d+ broadcasts, .+"
    r"|Sent \d+ broadcasts, .+|\d+ runts, \d+ giants|\d+ output errors, \d+ collisions"
    r"|Member of .+|Members in this channel: .+|Fallback mode is: .+|No Internet protocol address assigned"
    r"|Active members in this channel: .+|IPv6 .+|.+ link-local .+|Link layer.*|No IPv6 .+|Source interface is .+"
    r"|Listening on UDP port \d+|Replication/Flood Mode is .+|Remote MAC learning .+|(Static )?VLAN to VNI mapping .+"
    r"|Note: .+|Headend replication flood vtep list is:|Shared Router MAC is .+|MLAG .+|\[\d+, [\d.]+\]|\d+ [\d.]+)$"
)
_SPEED_GBPS = {"M": 0.001, "G": 1.0, "T": 1000.0}


@parser(INTERFACES_TEXT_TOOL, "show interfaces (EOS, text): oper state, MTU (IP MTU or Ethernet MTU), speed, discards, pause frames")
def parse_interfaces_text(text: str) -> Parsed[InterfaceFacts]:
    reading = Reading(INTERFACES_TEXT_TOOL, text)
    _known_echo(reading)
    ports: InterfaceFacts = {}
    current: dict[str, Any] | None = None

    def close() -> None:
        if current is not None:
            name = current["name"]
            speed = current.get("speed") if current.get("speed") is not None else current.get("bandwidth")
            ports[name] = (PortStatus(name, current["up"], speed, current.get("mtu")),
                           PortCounters(name, in_discards=current.get("input"), out_discards=current.get("output")))

    for line in reading.content():
        words = line.words
        if head := _TEXT_HEAD.match(words):  # at any indentation: a paste that shifted it must not merge two interfaces
            close()
            current = {"name": head.group(1), "up": head.group(2) == "up" and head.group(3) == "up", "lines": {}}
            reading.used(line)
        elif current is None:
            continue
        elif _TEXT_KNOWN.match(words):
            reading.known(line)
        else:
            with reading.row(line, current["name"]):
                _interface_line(words, current, line, reading)
    close()
    return reading.done(ports, nothing="no '<interface> is up|down, line protocol is ...' line")


def _set(current: dict[str, Any], key: str, value: Any, line: Line, reading: Reading) -> None:
    """One value of the interface; given a second time, differently (EOS prints each once: two interfaces merged
    by a damaged output), it is not known: both lines unread."""
    earlier = current["lines"].get(key)
    if earlier is not None and current.get(key) != value:
        reading.unread(earlier, f"{key} given twice in {current['name']} (line {earlier.number} and line {line.number})",
                       current["name"])
        current[key] = None
        raise Unfit(f"{key} given twice in {current['name']} (line {earlier.number} and line {line.number})")
    current["lines"][key] = line
    current[key] = value


def _interface_line(words: str, current: dict[str, Any], line: Line, reading: Reading) -> None:
    if match := _TEXT_MTU.match(words):
        _set(current, "mtu", int(match.group(1)), line, reading)
        if match.group(2) and int(match.group(2)):
            _set(current, "bandwidth", int(match.group(2)) / 1e6, line, reading)
    elif match := _TEXT_SPEED.match(words):
        if match.group(2):
            _set(current, "speed", float(match.group(2)) * _SPEED_GBPS[match.group(3)], line, reading)
    elif match := _TEXT_DISCARDS.match(words):
        _set(current, match.group(2), int(match.group(1)), line, reading)
    elif _TEXT_PAUSE.match(words):
        pass  # link-level pause frames (IEEE 802.3x), not PFC
    else:
        raise Unfit("a line of the interface this parser does not know")


def _pfc_header(line: Line) -> Header | None:
    header = header_from_names(line)
    return header if header.names[:1] == ("Port",) and {"RxPfc", "TxPfc"} <= set(header.names) else None


@parser(PFC_COUNTERS_TOOL, "show priority-flow-control counters (EOS): PFC frames received and sent per port")
def parse_pfc_counters(text: str) -> Parsed[dict[str, PortCounters]]:
    reading = Reading(PFC_COUNTERS_TOOL, text)
    _known_echo(reading)
    ports: dict[str, PortCounters] = {}
    header: Header | None = None
    flattened = False
    for line in reading.content():
        if (found := _pfc_header(line)) is not None:
            header, flattened = found, is_flattened(line)
            reading.known(line)
            continue
        if header is None:
            continue
        name = eos_port_name(line.stripped.split()[0])
        with reading.row(line, name):
            cells = flattened_cells(header, line) if flattened else header.cells(line)
            if not re.fullmatch(r"(Et|Ethernet|Po|Port-Channel)\d[\d/]*", cells["Port"]):
                raise Unfit(f"Port: expected e.g. Et3/1/1, found {cells['Port']!r}")
            ports[name] = PortCounters(name, pfc_rx=count(cells["RxPfc"], "RxPfc"), pfc_tx=count(cells["TxPfc"], "TxPfc"))
    return reading.done(ports, nothing="no port row under a 'Port RxPfc TxPfc' header")


@parser(WATCHDOG_TOOL, "show priority-flow-control (EOS): PFC watchdog timeout, recovery, polling, action")
def parse_pfc_watchdog(text: str) -> Parsed[Watchdog]:
    reading = Reading(WATCHDOG_TOOL, text)
    _known_echo(reading)
    found: dict[str, str] = {}
    for line in reading.content():
        words = line.words
        if _WATCHDOG_KNOWN.match(words):
            reading.known(line)
        elif words.startswith("The PFC watchdog "):
            with reading.row(line):
                if match := _WATCHDOG_LINE.match(words):
                    found[match.group(1)] = match.group(2)
                elif match := _WATCHDOG_ACTION.match(words):
                    found["action"] = match.group(1)
                else:
                    raise Unfit("a watchdog setting in a form this parser does not know")
    seconds = {k: decimal(v, k) * 1000 for k, v in found.items() if k != "action"}
    watchdog = Watchdog("action" in found or "timeout" in found, found.get("action"), seconds.get("timeout"),
                        seconds.get("recovery-time"), seconds.get("polling-interval"))
    return reading.done(watchdog, nothing="no 'The PFC watchdog ... is ...' line")
