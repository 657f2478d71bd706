"""SONiC's configuration database as ``sonic-cfggen -d --print-data`` (or /etc/sonic/config_db.json) prints it:
PORT, PORT_QOS_MAP, DSCP_TO_TC_MAP, QUEUE, WRED_PROFILE and PFC_WD tables."""

from __future__ import annotations

import json
from typing import Any

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_text, fail
from pytest_gpufabric.switches.facts import EcnQueue, PortConfig, SwitchConfig, Watchdog

TOOL = "sonic-config-db"
NO_ECN = ("ecn_none", "")


def _table(db: dict[str, Any], name: str) -> dict[str, dict[str, Any]]:
    table = db.get(name, {})
    if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
        fail(TOOL, f"table {name} is not a mapping of keys to fields")
    return table


def _int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    text = str(value).strip()
    if not text.isdigit():
        fail(TOOL, f"{what}: expected an integer, found {value!r}")
    return int(text)


def _numbers(spec: str, what: str) -> list[int]:
    """``3,4`` or ``3-4`` (SONiC lists and ranges of priorities and queues)."""
    numbers: list[int] = []
    for part in str(spec).replace(" ", "").split(","):
        if not part:
            continue
        low, dash, high = part.partition("-")
        first, last = _int(low, what), _int(high, what) if dash else _int(low, what)
        if first is None or last is None:
            fail(TOOL, f"{what}: bad list {spec!r}")
        numbers.extend(range(first, last + 1))
    return numbers


def _queue_profiles(db: dict[str, Any]) -> dict[str, dict[int, str]]:
    """Port -> queue -> WRED profile name, from QUEUE keys ``Ethernet0|3``, ``Ethernet0,Ethernet4|3-4`` or
    the VOQ form ``host|asic|Ethernet0|3``."""
    found: dict[str, dict[int, str]] = {}
    for key, fields in _table(db, "QUEUE").items():
        parts = key.split("|")
        if len(parts) < 2 or "wred_profile" not in fields:
            continue
        for port in parts[-2].split(","):
            for queue in _numbers(parts[-1], f"QUEUE {key}"):
                found.setdefault(port, {})[queue] = str(fields["wred_profile"])
    return found


def _ecn(profile: dict[str, Any], queue: int) -> EcnQueue:
    return EcnQueue(
        queue=queue,
        ecn=str(profile.get("ecn", "")) not in NO_ECN,
        min_threshold_bytes=_int(profile.get("green_min_threshold"), "green_min_threshold"),
        max_threshold_bytes=_int(profile.get("green_max_threshold"), "green_max_threshold"),
        max_mark_probability=_int(profile.get("green_drop_probability"), "green_drop_probability"),
    )


def _dscp_map(db: dict[str, Any], name: str | None) -> dict[int, int]:
    if not name:
        return {}
    table = _table(db, "DSCP_TO_TC_MAP").get(name)
    if table is None:
        fail(TOOL, f"PORT_QOS_MAP names DSCP_TO_TC_MAP {name!r}, which is not defined")
    return {int(d): int(t) for d, t in table.items() if str(d).isdigit() and str(t).isdigit()}


def _watchdog(db: dict[str, Any]) -> Watchdog | None:
    table = _table(db, "PFC_WD")
    ports = {k: v for k, v in table.items() if k != "GLOBAL"}
    if not ports:
        return None
    first = next(iter(ports.values()))
    polling = table.get("GLOBAL", {}).get("POLL_INTERVAL")
    return Watchdog(True, first.get("action"), _int(first.get("detection_time"), "detection_time"),
                    _int(first.get("restoration_time"), "restoration_time"), _int(polling, "POLL_INTERVAL"))


@parser(TOOL, "sonic-cfggen -d --print-data: PFC, ECN/WRED, DSCP map, MTU, speed and FEC per port, PFC watchdog")
def parse_config_db(text: str) -> SwitchConfig:
    try:
        db = json.loads(clean_text(TOOL, text))
    except json.JSONDecodeError as exc:
        fail(TOOL, f"not JSON ({exc.msg} at line {exc.lineno})")
    if not isinstance(db, dict):
        fail(TOOL, "expected a JSON object of tables")
    ports_table = _table(db, "PORT")
    if not ports_table:
        fail(TOOL, "no PORT table")
    qos = _table(db, "PORT_QOS_MAP")
    wred = _table(db, "WRED_PROFILE")
    queues = _queue_profiles(db)
    global_map = qos.get("global", {}).get("dscp_to_tc_map")
    ports = {}
    for name, fields in ports_table.items():
        port_qos = qos.get(name, {})
        no_drop = frozenset(_numbers(str(port_qos.get("pfc_enable", "")), f"PORT_QOS_MAP {name} pfc_enable"))
        ecn = tuple(_ecn(wred.get(profile, {}), queue) for queue, profile in sorted(queues.get(name, {}).items()))
        map_name = port_qos.get("dscp_to_tc_map") or global_map
        ports[name] = PortConfig(
            name=name, pfc_enabled=bool(no_drop), no_drop_priorities=no_drop, ecn_queues=ecn,
            dscp_trusted=bool(map_name), dscp_to_tc=_dscp_map(db, map_name), mtu=_int(fields.get("mtu"), f"{name} mtu"),
            speed=str(fields["speed"]) if "speed" in fields else None, fec=fields.get("fec"), link_pause=None,
        )
    return SwitchConfig(ports, _watchdog(db))
