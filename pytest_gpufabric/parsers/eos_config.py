"""Arista EOS ``show running-config`` (and ``show running-config all``): PFC, ECN on the tx-queues, DSCP trust and
map, traffic class to tx-queue map, MTU, speed, FEC and link-level pause per interface (directly or through a
``service-profile`` qos profile, S0 2.5.1), and the PFC watchdog (S3 "PFC Watchdog").

The parsing rule (parsers/reading.py): every line of the parser's subject (``mtu``, ``speed``, ``error-correction``,
``flowcontrol``, ``priority-flow-control``, ``qos``, ``random-detect``, ``service-profile``, ``service-policy``,
``switchport``, the tx-queues) must be understood completely or it is unread, costing only the facts it could
hold (its interface's or profile's); lines outside the subject (``description``, ``ip address``, ``router bgp``
...) are known and hold nothing the checks judge. Sub-commands are recognized by keyword, so the unindented
renditions of the documents parse like the device's own indented output.

What a line does not say comes from the documented defaults (EOS User Manual): PFC off, link-level pause off
in both directions, DSCP trusted on routed ports and CoS on switched ones, the default DSCP to traffic class
map, traffic class N on tx-queue N. Where the interface and its qos profile set one thing differently, the
port's value is not known (unread, naming both lines): never one of the two by guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.switches.facts import EcnQueue, PortConfig, SwitchConfig, Watchdog

TOOL = "eos-running-config"
# EOS default DSCP -> traffic class (trusted DSCP): DSCP d is CoS d>>3, and CoS 0 -> TC 1, CoS 1 -> TC 0,
# CoS n -> TC n otherwise (EOS User Manual, Quality of Service, "default DSCP to traffic class map").
DEFAULT_DSCP_TO_TC = {dscp: {0: 1, 1: 0}.get(dscp >> 3, dscp >> 3) for dscp in range(64)}
DEFAULT_LINK_PAUSE = "off"  # EOS User Manual, Ethernet Ports, "flowcontrol send", "flowcontrol receive": off by default
# ECN threshold units: bytes convert exactly; segments (buffer cells of a platform-dependent size) and time units
# do not, so they are kept with their unit and judged only against values of the same unit.
_UNIT_BYTES = {"bytes": 1, "kbytes": 1024, "mbytes": 1024 * 1024}
_TIME_UNITS = {"microseconds": 0.001, "milliseconds": 1.0}  # -> milliseconds
_SUBJECT = re.compile(
    r"^(no |default )?(mtu|speed|error-correction|flowcontrol|priority-flow-control|qos|random-detect|service-profile"
    r"|service-policy|switchport|(uc-|mc-)?tx-queue)\b"
)
_SECTION = re.compile(r"^(interface|qos profile) (\S+)$")
_QUEUE = re.compile(r"^(uc-|mc-)?tx-queue (\d+)$")
_SUBINTERFACE = re.compile(r"\.\d+$")
_NUMBERS = r"\d+(?: \d+)*"
_DSCP_MAP = re.compile(rf"^qos map dscp ({_NUMBERS}) to traffic-class (\d+)(?: drop-precedence (\d+|low|medium|high))?$")
_TC_QUEUE_MAP = re.compile(rf"^qos map traffic-class ({_NUMBERS}) to tx-queue (\d+)$")
_OTHER_MAPS = re.compile(rf"^qos map (cos|exp|traffic-class) ({_NUMBERS}) to (traffic-class|dscp|cos|exp) \d+"
                         r"( drop-precedence \S+)?$")
_ECN = re.compile(
    r"^random-detect ecn minimum-threshold (\d+(?:\.\d+)?) (\w+) maximum-threshold (\d+(?:\.\d+)?) (\w+)"
    r"(?: max-mark-probability (\d+))?(?: weight (\d+))?$"
)
_QUEUE_KNOWN = re.compile(
    r"^(no priority|priority strict|bandwidth( guaranteed)? percent \d+|bandwidth guaranteed \d+ \w+|shape rate .+"
    r"|random-detect ecn count|random-detect drop .+|!!.*"
    # the no-forms `show running-config all` prints for a queue left at its defaults (no ECN marking among them)
    r"|no (bandwidth( guaranteed| percent)?|shape rate|random-detect (drop|ecn( minimum-threshold| count)?)))$"
)
_GLOBAL_WATCHDOG = re.compile(r"^priority-flow-control pause watchdog (?:default )?(timeout|recovery-time|polling-interval)"
                              r" (\d+(?:\.\d+)?)$")
_WATCHDOG_ACTION = re.compile(r"^priority-flow-control pause watchdog action (drop|no-drop|errdisable)$")
_KNOWN_TOP = re.compile(r"^(qos rewrite (dscp|cos)|no qos rewrite (dscp|cos)|qos random-detect ecn .+"
                        r"|qos profile \S+|priority-flow-control pause watchdog hardware .+)$")


_CONFLICT = object()  # a setting given differently twice: not known


@dataclass
class _Setting:
    """One setting of a section: its value and the line it was read from."""

    value: object
    line: Line


@dataclass
class _Section:
    """What one interface or qos profile configures (each setting with its line), while reading."""

    name: str
    line: Line
    settings: dict[str, _Setting] = field(default_factory=dict)
    no_drop: dict[int, _Setting] = field(default_factory=dict)
    queues: dict[int, _Setting] = field(default_factory=dict)  # queue -> EcnQueue (or None: ECN off)
    fec: list[_Setting] = field(default_factory=list)
    repeated: list[tuple[_Setting, _Setting]] = field(default_factory=list)  # one setting given twice, differently

    def set(self, key: str, value: object, line: Line) -> None:
        """Keep one setting; given twice with different values (EOS prints each once: a damaged output) it is not
        known."""
        earlier = self.settings.get(key)
        if earlier is not None and earlier.value != value:
            self.repeated.append((earlier, _Setting(value, line)))
            value = _CONFLICT
        self.settings[key] = _Setting(value, line)


@dataclass
class _Config:
    interfaces: dict[str, _Section] = field(default_factory=dict)
    profiles: dict[str, _Section] = field(default_factory=dict)
    dscp_map: dict[int, int] = field(default_factory=lambda: dict(DEFAULT_DSCP_TO_TC))
    tc_queue: dict[int, int] = field(default_factory=dict)
    pfc_all_off: bool = False
    watchdog: dict[str, str] = field(default_factory=dict)


def _number(text: str) -> float | int:
    return float(text) if "." in text else int(text)


def _threshold(value: str, unit: str, what: str) -> tuple[float | int, str]:
    if unit in _UNIT_BYTES:
        return _number(value) * _UNIT_BYTES[unit], "bytes"
    if unit in _TIME_UNITS:
        return _number(value) * _TIME_UNITS[unit], "milliseconds"
    if unit == "segments":
        return _number(value), "segments"
    raise Unfit(f"{what}: unknown threshold unit {unit!r}")


def _ecn(queue: int, text: str) -> EcnQueue:
    match = _ECN.match(text)
    if not match:
        raise Unfit("random-detect ecn: not the form 'minimum-threshold N UNIT maximum-threshold N UNIT "
                    "[max-mark-probability P] [weight W]'")
    low, low_unit, high, high_unit, probability, _ = match.groups()
    low_value, low_kind = _threshold(low, low_unit, "minimum-threshold")
    high_value, high_kind = _threshold(high, high_unit, "maximum-threshold")
    if low_kind != high_kind:
        raise Unfit(f"minimum-threshold in {low_unit} and maximum-threshold in {high_unit}: no common unit")
    # Without max-mark-probability EOS marks at 100 % at the maximum threshold (EOS User Manual, "random-detect ecn").
    return EcnQueue(queue, True, low_value, high_value, int(probability) if probability else 100, low_kind)


_SECTION_KNOWN = re.compile(
    r"^((no )?priority-flow-control pause watchdog( port action( (drop|no-drop|errdisable))?| port timer( .+)?| hardware .+)?"
    r"|qos (cos|dscp) \d+|service-policy( type (pbr|tx-queue|traffic-policy|shape|pdp|copp))? (input|output) \S+"
    r"|(no |default )?switchport .+"
    # defaults as `show running-config all` prints them: the trust and FEC the platform gives the port (the port's
    # FEC mode stays unknown), the reed-solomon bypass (not a FEC mode)
    r"|default qos trust|default error-correction encoding|(no )?error-correction reed-solomon bypass( .+)?)$"
)


def _section_line(section: _Section, line: Line, reading: Reading) -> None:
    """One line of an interface or qos profile (outside its tx-queues): a setting of the subject, or unread."""
    text = line.words
    if _SECTION_KNOWN.fullmatch(text):
        reading.known(line)  # the port's watchdog timers, untrusted defaults, other policies, switchport modes
        return
    with reading.row(line, section.name):
        if match := re.fullmatch(r"mtu (\d+)", text):
            section.set("mtu", int(match.group(1)), line)
        elif match := re.fullmatch(r"speed (?:forced )?(\S+)|speed (auto(?: \S+)?)", text):
            section.set("speed", match.group(1) or match.group(2), line)
        elif text == "no speed":
            section.set("speed", "auto", line)
        elif match := re.fullmatch(r"error-correction encoding (reed-solomon|fire-code)", text):
            section.fec.append(_Setting(match.group(1), line))
        elif text == "no error-correction encoding":
            section.fec.append(_Setting("disabled", line))
        elif match := re.fullmatch(r"flowcontrol (send|receive) (on|off|desired)", text):
            section.set(f"flowcontrol {match.group(1)}", match.group(2), line)
        elif match := re.fullmatch(r"(?:no|default) flowcontrol (send|receive)", text):
            section.set(f"flowcontrol {match.group(1)}", DEFAULT_LINK_PAUSE, line)
        elif text in ("priority-flow-control on", "priority-flow-control mode on"):
            section.set("pfc", True, line)
        elif text in ("no priority-flow-control", "no priority-flow-control mode", "no priority-flow-control mode on",
                      "priority-flow-control off", "priority-flow-control mode off"):
            section.set("pfc", False, line)
        elif match := re.fullmatch(r"priority-flow-control priority ([0-7]) (no-drop|drop)", text):
            section.no_drop[int(match.group(1))] = _Setting(match.group(2) == "no-drop", line)
        elif match := re.fullmatch(r"(?:no|default) priority-flow-control priority ([0-7])", text):
            section.no_drop[int(match.group(1))] = _Setting(False, line)  # the default: a drop priority
        elif match := re.fullmatch(r"qos trust (dscp|cos)", text):
            section.set("trust", match.group(1), line)
        elif text in ("no qos trust", "qos trust none"):
            section.set("trust", "none", line)
        elif match := re.fullmatch(r"service-profile (\S+)", text):
            section.set("profile", match.group(1), line)
        elif match := re.fullmatch(r"service-policy (?:type (?:qos|quality-of-service) )?input (\S+)", text):
            section.set("policy", match.group(1), line)
        elif text in ("no switchport", "switchport"):
            section.set("routed", text == "no switchport", line)
        else:
            raise Unfit("a setting of the parser's subject in a form it does not know")


def _queue_line(section: _Section, queue: int, multicast: bool, line: Line, reading: Reading) -> None:
    text = line.words
    if multicast or _QUEUE_KNOWN.fullmatch(text):
        reading.known(line)  # scheduling and WRED drop settings; multicast queues carry no RoCE
        return
    with reading.row(line, section.name):
        if text.startswith("random-detect ecn "):
            section.queues[queue] = _Setting(_ecn(queue, text), line)
        else:
            raise Unfit(f"tx-queue {queue}: a setting this parser does not know")


def _top_line(line: Line, config: _Config, reading: Reading) -> None:
    text = line.words
    if _OTHER_MAPS.fullmatch(text) or _KNOWN_TOP.fullmatch(text) or text == "priority-flow-control pause watchdog":
        reading.known(line)
        return
    with reading.row(line):
        if match := _DSCP_MAP.fullmatch(text):
            values = [int(dscp) for dscp in match.group(1).split()]
            if max(values) > 63:
                raise Unfit(f"DSCP {max(values)} is not a DSCP value (0-63)")
            config.dscp_map.update(dict.fromkeys(values, int(match.group(2))))
        elif match := _TC_QUEUE_MAP.fullmatch(text):
            config.tc_queue.update(dict.fromkeys((int(tc) for tc in match.group(1).split()), int(match.group(2))))
        elif text == "priority-flow-control all off":
            config.pfc_all_off = True
        elif match := _GLOBAL_WATCHDOG.fullmatch(text):
            config.watchdog[match.group(1)] = match.group(2)
        elif match := _WATCHDOG_ACTION.fullmatch(text):
            config.watchdog["action"] = match.group(1)
        else:
            raise Unfit("a global qos or priority-flow-control setting this parser does not know")


_TOP_LEVEL_SETTINGS = ("qos map ", "qos rewrite ", "qos random-detect ", "priority-flow-control pause watchdog ",
                       "priority-flow-control all")
_QUEUE_WORDS = ("random-detect", "no random-detect", "no priority", "priority strict", "bandwidth", "!!")


def _read(reading: Reading) -> _Config:
    """Every line into its section: interfaces and qos profiles (with their tx-queues), global settings, and
    sections outside the subject (router bgp, policy-map ...), whose lines are known. ``interface X`` and
    ``qos profile X`` open a section at any indentation (they are never sub-commands), so a capture whose
    indentation was damaged by pasting still reads; a section's lines are the more indented ones after it (or, in
    the unindented renditions of the documents, its settings by keyword)."""
    config = _Config()
    section: _Section | None = None
    queue: tuple[int, bool, int] | None = None  # number, multicast, indent of its header
    for line in reading.content():
        text, indent = line.words, line.indent
        inside = section is not None and (indent > section.line.indent or (indent == section.line.indent == 0
                                                                            and _SUBJECT.match(text) is not None))
        if text.startswith("!") or text == "end":
            reading.known(line)
            if section is not None and text == "!" and indent <= section.line.indent:
                section, queue = None, None
            elif queue is not None and text == "!" and indent <= queue[2]:
                queue = None
            continue
        if match := _SECTION.fullmatch(text):
            into = config.interfaces if match.group(1) == "interface" else config.profiles
            section, queue = into.setdefault(match.group(2), _Section(match.group(2), line)), None
            reading.known(line)
            continue
        if indent == 0 and text.startswith(_TOP_LEVEL_SETTINGS):
            inside = False
        if section is None or not inside:
            section, queue = None, None
            if indent == 0 and _SUBJECT.match(text):
                _top_line(line, config, reading)
            else:
                reading.known(line)  # hostname, router bgp and its lines, policy-map ...: outside the subject
            continue
        if match := _QUEUE.fullmatch(text):
            queue = (int(match.group(2)), match.group(1) == "mc-", indent)
            reading.known(line)
        elif queue is not None and (indent > queue[2] or (indent == queue[2] == 0 and text.startswith(_QUEUE_WORDS))):
            _queue_line(section, queue[0], queue[1], line, reading)
        elif _SUBJECT.match(text):
            queue = None
            _section_line(section, line, reading)
        else:
            queue = None
            reading.known(line)  # description, ip address, channel-group ...: outside the subject
    return config


def _one(own: _Setting | None, inherited: _Setting | None, what: str, reading: Reading,
         scopes: tuple[str, str]) -> object | None:
    """The port's value of one setting, from the interface or its profile; both, differing: not known (both lines
    unread, each in its own section's scope)."""
    if (own is not None and own.value is _CONFLICT) or (inherited is not None and inherited.value is _CONFLICT):
        return _CONFLICT
    if own is not None and inherited is not None and own.value != inherited.value:
        for setting, scope in ((own, scopes[0]), (inherited, scopes[1])):
            reading.unread(setting.line, f"{what}: the interface and its qos profile disagree "
                                         f"({own.value!r} at line {own.line.number}, {inherited.value!r} at line "
                                         f"{inherited.line.number})", scope)
        return _CONFLICT
    chosen = own or inherited
    return chosen.value if chosen is not None else None


def _port(section: _Section, profile: _Section | None, config: _Config, reading: Reading) -> PortConfig:
    name = section.name
    sources = (name,) + ((profile.name,) if profile else ())
    for first, second in section.repeated + (profile.repeated if profile else []):
        for setting in (first, second):
            reading.unread(setting.line, f"set twice in one section ({first.value!r} at line {first.line.number}, "
                                         f"{second.value!r} at line {second.line.number}): not known", name)
    link = {key: s.value for key, s in section.settings.items() if s.value is not _CONFLICT}
    send = link.get("flowcontrol send", DEFAULT_LINK_PAUSE)
    receive = link.get("flowcontrol receive", DEFAULT_LINK_PAUSE)
    pause = "off" if send == receive == "off" else f"send {send}, receive {receive}"
    fec = ", ".join(sorted({str(s.value) for s in section.fec})) if section.fec else None
    # A subinterface (``Ethernet52.142``) only exists on a routed port and is routed itself (EOS User Manual,
    # "Subinterfaces": Layer 3 only), whatever its section prints.
    routed = bool(link.get("routed", _SUBINTERFACE.search(name) is not None))
    base = PortConfig(name=name, mtu=link.get("mtu"), speed=link.get("speed"), fec=fec,  # type: ignore[arg-type]
                      link_pause=pause, routed=routed, sources=sources)
    profile_name = section.settings.get("profile")
    if profile_name is not None and profile_name.value is _CONFLICT:
        return base
    if profile_name is not None and profile is None:
        reading.unread(profile_name.line, f"service-profile {profile_name.value} is not defined in this configuration: "
                                          f"the QoS settings of {name} are not known", name)
        return base
    inherited = profile.settings if profile else {}

    def setting(key: str, what: str) -> object | None:
        return _one(section.settings.get(key), inherited.get(key), what, reading, (name, profile.name if profile else name))

    pfc = setting("pfc", "priority-flow-control")
    if pfc is None:
        pfc = False  # EOS User Manual, "DCBX and Flow Control": PFC is disabled by default
    trust = setting("trust", "qos trust")
    policy = setting("policy", "service-policy type qos input")
    no_drop_settings = {**(profile.no_drop if profile else {}), **section.no_drop}
    queues = {**(profile.queues if profile else {}), **section.queues}
    pfc_on = False if config.pfc_all_off else pfc
    known_pfc = pfc_on if pfc_on is not _CONFLICT else None
    if trust is None:
        trust = "dscp" if routed else "cos"  # EOS User Manual, QoS "Port trust": routed ports DSCP, switched CoS
    dscp_to_tc: dict[int, int] | None = dict(config.dscp_map) if trust == "dscp" else {}
    if policy not in (None, _CONFLICT):
        own_policy = section.settings.get("policy")
        policy_line = (own_policy or inherited["policy"]).line
        reading.unread(policy_line, f"service-policy {policy}: its class-maps may set traffic classes that the DSCP map "
                                    f"does not; the port's DSCP classification is not read",
                       name if own_policy or profile is None else profile.name)
        dscp_to_tc = None
    elif policy is _CONFLICT:
        dscp_to_tc = None
    return PortConfig(
        name=name, pfc_enabled=bool(known_pfc) if known_pfc is not None else None,
        no_drop_priorities=(frozenset(p for p, s in no_drop_settings.items() if s.value) if known_pfc else
                            frozenset() if known_pfc is not None else None),
        ecn_queues=tuple(s.value for _, s in sorted(queues.items())),  # type: ignore[misc]
        dscp_trusted=None if trust is _CONFLICT else trust == "dscp",
        dscp_to_tc=None if trust is _CONFLICT else dscp_to_tc,
        priority_queues={tc: config.tc_queue.get(tc, tc) for tc in range(8)} if config.tc_queue else None,
        mtu=base.mtu, speed=base.speed, fec=fec, link_pause=pause, routed=routed, sources=sources,
    )


def _watchdog(found: dict[str, str]) -> Watchdog | None:
    if not found:
        return None
    seconds = {k: float(v) * 1000 for k, v in found.items() if k != "action"}
    return Watchdog(True, found.get("action"), seconds.get("timeout"), seconds.get("recovery-time"),
                    seconds.get("polling-interval"))


@parser(TOOL, "show running-config (EOS): PFC, ECN, DSCP trust/map, MTU, speed, FEC, pause per interface; PFC watchdog")
def parse_running_config(text: str) -> Parsed[SwitchConfig]:
    reading = Reading(TOOL, text)
    config = _read(reading)
    ports = {name: _port(section, config.profiles.get(str(section.settings["profile"].value))
                         if "profile" in section.settings and section.settings["profile"].value is not _CONFLICT else None,
                         config, reading)
             for name, section in config.interfaces.items()}
    if ports:
        reading.used(next(iter(config.interfaces.values())).line)  # an interface section is a fact: the port exists
    return reading.done(SwitchConfig(ports, _watchdog(config.watchdog)), nothing="no `interface` section")
