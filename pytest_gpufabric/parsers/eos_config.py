"""Arista EOS ``show running-config``: PFC, ECN on the tx-queues, DSCP trust and map, MTU, speed, FEC and
link-level pause per interface (directly or through a ``service-profile`` qos profile, S0 2.5.1), and the
PFC watchdog (S3 "PFC Watchdog"). Sub-commands are recognized by keyword, so the unindented renditions
of the documents parse like the device's own indented output."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail
from pytest_gpufabric.switches.facts import EcnQueue, PortConfig, SwitchConfig, Watchdog

TOOL = "eos-running-config"
# EOS default DSCP -> traffic class (trusted DSCP): DSCP d is CoS d>>3, and CoS 0 -> TC 1, CoS 1 -> TC 0,
# CoS n -> TC n otherwise (EOS User Manual, Quality of Service, "default DSCP to traffic class map").
DEFAULT_DSCP_TO_TC = {dscp: {0: 1, 1: 0}.get(dscp >> 3, dscp >> 3) for dscp in range(64)}
_UNIT_BYTES = {"bytes": 1, "kbytes": 1024, "mbytes": 1024 * 1024}
_QUEUE = re.compile(r"^(?:uc-)?tx-queue (\d+)$")
_ECN = re.compile(
    r"^random-detect ecn minimum-threshold (\d+) (\w+) maximum-?threshold (\d+) (\w+)"
    r"(?: max-mark-probability (\d+))?"
)
_DSCP_MAP = re.compile(r"^qos map dscp ([\d ]+) to traffic-class (\d+)$")
_WATCHDOG = re.compile(r"^priority-flow-control pause watchdog (?:default )?(timeout|recovery-time|polling-interval|action) (\S+)")


@dataclass
class _Block:
    """Settings of one interface or qos profile while reading."""

    lines: list[str] = field(default_factory=list)
    queues: dict[int, list[str]] = field(default_factory=dict)


def _blocks(lines: list[str]) -> tuple[dict[str, _Block], dict[str, _Block], list[str]]:
    interfaces: dict[str, _Block] = {}
    profiles: dict[str, _Block] = {}
    top: list[str] = []
    block: _Block | None = None
    queue: int | None = None
    for raw in lines:
        text = raw.strip()
        indented = raw[:1].isspace()
        if text.startswith("interface "):
            block, queue = interfaces.setdefault(text.split(None, 1)[1], _Block()), None
        elif text.startswith("qos profile "):
            block, queue = profiles.setdefault(text.split(None, 2)[2], _Block()), None
        elif not text or (text == "!" and not indented):
            block, queue = None, None
        elif text == "!":
            queue = None
        elif block is None or (not indented and text.startswith(("qos map ", "priority-flow-control pause watchdog"))):
            block = None
            top.append(text)
        elif _QUEUE.match(text):
            queue = int(_QUEUE.match(text).group(1))  # type: ignore[union-attr]
            block.queues.setdefault(queue, [])
        elif queue is not None:
            block.queues[queue].append(text)
        else:
            block.lines.append(text)
    return interfaces, profiles, top


def _ecn(queue: int, lines: list[str]) -> EcnQueue | None:
    for line in lines:
        match = _ECN.match(line)
        if match:
            low, low_unit, high, high_unit, probability = match.groups()
            if low_unit not in _UNIT_BYTES or high_unit not in _UNIT_BYTES:
                fail(TOOL, f"tx-queue {queue}: unknown threshold unit in {line!r}")
            return EcnQueue(queue, True, int(low) * _UNIT_BYTES[low_unit], int(high) * _UNIT_BYTES[high_unit],
                            int(probability) if probability else None)
    return None


def _pause(lines: list[str]) -> str | None:
    send = next((line.split()[-1] for line in lines if line.startswith("flowcontrol send ")), None)
    receive = next((line.split()[-1] for line in lines if line.startswith("flowcontrol receive ")), None)
    if send is None and receive is None:
        return None
    return "off" if send in (None, "off") and receive in (None, "off") else f"send {send or 'off'}, receive {receive or 'off'}"


def _value(lines: list[str], keyword: str) -> str | None:
    return next((line.split(None, len(keyword.split()))[-1] for line in lines if line.startswith(keyword + " ")), None)


def _port(name: str, own: _Block, profile: _Block | None, dscp_map: dict[int, int]) -> PortConfig:
    qos_lines = own.lines + (profile.lines if profile else [])
    queues = {**(profile.queues if profile else {}), **own.queues}
    no_drop = frozenset(int(line.split()[2]) for line in qos_lines
                        if re.fullmatch(r"priority-flow-control priority \d no-drop", line))
    pfc_on = any(line in ("priority-flow-control on", "priority-flow-control mode on") for line in qos_lines)
    ecn = tuple(q for q in (_ecn(n, lines) for n, lines in sorted(queues.items())) if q is not None)
    mtu = _value(own.lines, "mtu")
    fec = _value(own.lines, "error-correction encoding")
    trusted = "qos trust dscp" in qos_lines
    return PortConfig(
        name=name, pfc_enabled=pfc_on, no_drop_priorities=no_drop if pfc_on else frozenset(), ecn_queues=ecn,
        dscp_trusted=trusted, dscp_to_tc=dict(dscp_map) if trusted else {},
        mtu=int(mtu) if mtu and mtu.isdigit() else None, speed=_value(own.lines, "speed"), fec=fec,
        link_pause=_pause(own.lines),
    )


def _watchdog(top: list[str]) -> Watchdog | None:
    found = {m.group(1): m.group(2) for m in map(_WATCHDOG.match, top) if m}
    if not found:
        return None
    seconds = {k: float(v) * 1000 for k, v in found.items() if k != "action" and re.fullmatch(r"\d+(\.\d+)?", v)}
    return Watchdog(True, found.get("action"), seconds.get("timeout"), seconds.get("recovery-time"),
                    seconds.get("polling-interval"))


@parser(TOOL, "show running-config (EOS): PFC, ECN, DSCP trust/map, MTU, speed, FEC, pause per interface; PFC watchdog")
def parse_running_config(text: str) -> SwitchConfig:
    lines = clean_lines(TOOL, text)
    interfaces, profiles, top = _blocks(lines)
    if not interfaces:
        fail(TOOL, "no `interface` section")
    dscp_map = dict(DEFAULT_DSCP_TO_TC)
    for match in filter(None, map(_DSCP_MAP.match, top)):
        for dscp in match.group(1).split():
            dscp_map[int(dscp)] = int(match.group(2))
    ports = {}
    for name, block in interfaces.items():
        profile_name = _value(block.lines, "service-profile")
        if profile_name is not None and profile_name not in profiles:
            fail(TOOL, f"interface {name} uses service-profile {profile_name}, which is not defined")
        ports[name] = _port(name, block, profiles.get(profile_name) if profile_name else None, dscp_map)
    return SwitchConfig(ports, _watchdog(top))
