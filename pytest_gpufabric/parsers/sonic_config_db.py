"""SONiC's configuration database as ``sonic-cfggen -d --print-data`` (or /etc/sonic/config_db.json) prints it:
PORT, PORT_QOS_MAP, DSCP_TO_TC_MAP, PFC_PRIORITY_TO_QUEUE_MAP, QUEUE, WRED_PROFILE and PFC_WD tables.

The parsing rule for a JSON document (parsers/reading.py): a table or a field this parser cannot read costs only
its own facts, tied to the line where its key stands (unread, with the port as scope); lines before or after the
JSON object (a warning) are unread; only an output without a PORT table it can read is refused."""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import fail
from pytest_gpufabric.switches.facts import EcnQueue, PortConfig, SwitchConfig, Watchdog

TOOL = "sonic-config-db"
NO_ECN = ("ecn_none", "")


class _Db:
    """The decoded database and the reading its problems are recorded in."""

    def __init__(self, reading: Reading, data: dict[str, Any]) -> None:
        self.reading = reading
        self.data = data
        self._lines = _key_lines(reading)

    def line(self, *keys: str) -> Line:
        """The line of the innermost of ``keys`` (a table, a key in it, a field) that the output shows."""
        for end in range(len(keys), 0, -1):
            if keys[:end] in self._lines:
                return self._lines[keys[:end]]
        return self.reading.lines[0]

    def table(self, name: str) -> dict[str, dict[str, Any]]:
        table = self.data.get(name, {})
        if isinstance(table, dict) and all(isinstance(v, dict) for v in table.values()):
            return table
        self.reading.unread(self.line(name), f"table {name} is not a mapping of keys to fields")
        return {}

    def problem(self, table: str, key: str, reason: str, scope: str = "", field: str | None = None) -> None:
        """``reason`` at the line of ``table``/``key`` (and its ``field``)."""
        self.reading.unread(self.line(table, key, *((field,) if field else ())), reason, scope)


_KEY = re.compile(r'^(\s*)"((?:[^"\\]|\\.)*)"\s*:')


def _key_lines(reading: Reading) -> dict[tuple[str, ...], Line]:
    """The line of every key path of the JSON document as printed (one key per line, nested by indentation)."""
    found: dict[tuple[str, ...], Line] = {}
    stack: list[tuple[int, str]] = []
    for line in reading.lines:
        match = _KEY.match(line.text)
        if match is None:
            continue
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = tuple(key for _, key in stack) + (match.group(2),)
        found.setdefault(path, line)
        if line.text.rstrip().endswith("{"):
            stack.append((indent, match.group(2)))
    return found


def _int(value: Any, what: str) -> int:
    return integer(str(value), what)


def _numbers(spec: str, what: str) -> list[int]:
    """``3,4`` or ``3-4`` (SONiC lists and ranges of priorities and queues)."""
    numbers: list[int] = []
    for part in str(spec).replace(" ", "").split(","):
        if not part:
            continue
        low, dash, high = part.partition("-")
        numbers.extend(range(_int(low, what), _int(high if dash else low, what) + 1))
    return numbers


def _queue_profiles(db: _Db) -> dict[str, dict[int, str]]:
    """Port -> queue -> WRED profile name, from QUEUE keys ``Ethernet0|3``, ``Ethernet0,Ethernet4|3-4`` or
    the VOQ form ``host|asic|Ethernet0|3``."""
    found: dict[str, dict[int, str]] = {}
    for key, fields in db.table("QUEUE").items():
        parts = key.split("|")
        if len(parts) < 2 or "wred_profile" not in fields:
            continue
        try:
            queues = _numbers(parts[-1], f"QUEUE {key}")
        except Unfit as exc:
            db.problem("QUEUE", key, str(exc), parts[-2])
            continue
        for port in parts[-2].split(","):
            for queue in queues:
                found.setdefault(port, {})[queue] = str(fields["wred_profile"]).strip("[]").split("|")[-1]
    return found


def _ecn(db: _Db, name: str, queue: int) -> EcnQueue:
    profile = db.table("WRED_PROFILE").get(name)
    if profile is None:
        raise Unfit(f"queue {queue}: WRED_PROFILE {name!r} is not defined")
    return EcnQueue(
        queue=queue, ecn=str(profile.get("ecn", "")) not in NO_ECN,
        min_threshold=_int(profile["green_min_threshold"], "green_min_threshold") if "green_min_threshold" in profile else None,
        max_threshold=_int(profile["green_max_threshold"], "green_max_threshold") if "green_max_threshold" in profile else None,
        max_mark_probability=(_int(profile["green_drop_probability"], "green_drop_probability")
                              if "green_drop_probability" in profile else None),
    )


def _map(db: _Db, table: str, name: Any) -> dict[int, int]:
    """A named map of the database (``[DSCP_TO_TC_MAP|AZURE]`` references too) as numbers."""
    key = str(name).strip("[]").split("|")[-1]
    found = db.table(table).get(key)
    if found is None:
        raise Unfit(f"{table} {key!r} is not defined")
    return {_int(k, f"{table} {key}"): _int(v, f"{table} {key}") for k, v in found.items()}


def _port_watchdog(db: _Db, name: str) -> Watchdog:
    """The PFC watchdog of one port (PFC_WD|<port>; disabled where the table has no entry for it)."""
    table = db.table("PFC_WD")
    fields = table.get(name)
    if fields is None:
        return Watchdog(False)
    if "detection_time" not in fields or "restoration_time" not in fields:
        raise Unfit(f"PFC_WD {name}: no detection_time or restoration_time")
    polling = table.get("GLOBAL", {}).get("POLL_INTERVAL")
    return Watchdog(True, fields.get("action"), _int(fields["detection_time"], "detection_time"),
                    _int(fields["restoration_time"], "restoration_time"),
                    _int(polling, "POLL_INTERVAL") if polling is not None else None)


def _watchdog(ports: dict[str, PortConfig]) -> Watchdog | None:
    """The switch's watchdog as its ports have it: the first enabled one (each port keeps its own)."""
    return next((p.watchdog for p in ports.values() if p.watchdog is not None and p.watchdog.enabled), None)


def _port(db: _Db, name: str, fields: dict[str, Any], queues: dict[int, str]) -> PortConfig:
    """One port's facts; each field that cannot be read is unread and leaves only its own fact unknown."""
    qos = db.table("PORT_QOS_MAP")
    port_qos = qos.get(name, {})
    facts: dict[str, Any] = {"name": name, "sources": (name,)}

    def read(fact: str, table: str, func: Any, field: str | None = None) -> None:
        try:
            facts[fact] = func()
        except Unfit as exc:
            db.problem(table, name, f"{name}: {exc}", name, field)

    def no_drop() -> frozenset[int]:
        return frozenset(_numbers(str(port_qos.get("pfc_enable", "")), "pfc_enable"))

    read("no_drop_priorities", "PORT_QOS_MAP", no_drop, "pfc_enable")
    if "no_drop_priorities" in facts:
        facts["pfc_enabled"] = bool(facts["no_drop_priorities"])
    map_name = port_qos.get("dscp_to_tc_map") or qos.get("global", {}).get("dscp_to_tc_map")
    facts["dscp_trusted"] = bool(map_name)
    read("dscp_to_tc", "PORT_QOS_MAP", lambda: _map(db, "DSCP_TO_TC_MAP", map_name) if map_name else {}, "dscp_to_tc_map")
    if "pfc_to_queue_map" in port_qos:
        read("priority_queues", "PORT_QOS_MAP", lambda: _map(db, "MAP_PFC_PRIORITY_TO_QUEUE", port_qos["pfc_to_queue_map"]),
             "pfc_to_queue_map")
    read("ecn_queues", "QUEUE", lambda: tuple(_ecn(db, profile, queue) for queue, profile in sorted(queues.items())))
    read("mtu", "PORT", lambda: _int(fields["mtu"], "mtu") if "mtu" in fields else None, "mtu")
    read("watchdog", "PFC_WD", lambda: _port_watchdog(db, name))
    facts["speed"] = str(fields["speed"]) if "speed" in fields else None
    facts["fec"] = fields.get("fec")
    return PortConfig(**facts)


def _document(reading: Reading) -> dict[str, Any]:
    """The JSON object of the output; lines around it (warnings) are unread."""
    start = next((line for line in reading.lines if line.stripped.startswith("{")), None)
    if start is None:
        fail(TOOL, "no JSON object (a line starting with '{')")
    text = "\n".join(line.text for line in reading.lines[start.number - 1:])
    try:
        data, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as exc:
        fail(TOOL, f"not JSON ({exc.msg} at line {start.number + exc.lineno - 1})")
    if not isinstance(data, dict):
        fail(TOOL, "expected a JSON object of tables")
    last = start.number + text[:end].count("\n")
    for line in reading.lines[start.number - 1:last]:
        if line.stripped:
            reading.known(line)
    return data


@parser(TOOL, "sonic-cfggen -d --print-data: PFC, ECN/WRED, DSCP map, MTU, speed and FEC per port, PFC watchdog")
def parse_config_db(text: str) -> Parsed[SwitchConfig]:
    reading = Reading(TOOL, text)
    db = _Db(reading, _document(reading))
    ports_table = db.table("PORT")
    if not ports_table:
        fail(TOOL, "no PORT table")
    queues = _queue_profiles(db)
    ports = {}
    for name, fields in ports_table.items():
        ports[name] = _port(db, name, fields, queues.get(name, {}))
        reading.used(db.line("PORT", name))
    return reading.done(SwitchConfig(ports, _watchdog(ports)), nothing="no port in the PORT table")
