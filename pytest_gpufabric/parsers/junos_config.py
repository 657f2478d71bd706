"""Junos ``show configuration`` (QFX5xxx, classic Junos and Junos OS Evolved), hierarchical form: per port the
PFC no-drop priorities, the DSCP classification, ECN on each queue, MTU, speed, FEC and link-level flow
control, and the PFC watchdog; read on the parsing rule (parsers/reading.py).

How Junos says it (Juniper, Junos OS Class of Service user guide, "Understanding PFC Using DSCP at Layer 3",
"congestion-notification-profile", "Explicit Congestion Notification", "PFC Watchdog"):

- a port's congestion notification profile (``class-of-service interfaces <port or wildcard>``) enables PFC on
  **input** for IEEE 802.1p code points (``input ieee-802.1 code-point 011 pfc``: priority 3) or DSCP code points
  (``input dscp code-point 011010 pfc``: the priority is the ``pfc-priority`` of the DSCP's lossless forwarding
  class); its **output** side (``flow-control-queue``) only makes the port obey received pause frames, so a
  profile with only an output side means no PFC generated on ingress: no no-drop priority;
- the DSCP classifier of the port (or of ``unit *``) maps code points to forwarding classes, and
  ``forwarding-classes class <fc> queue-num <q>`` gives each class its queue: a port's traffic classes are these
  queue numbers, each paused by the class's ``pfc-priority`` (or the output side's code point);
- ECN: the scheduler of a class (``scheduler-map``) with ``explicit-congestion-notification`` marks by its drop
  profile: ``interpolate fill-level [ 55 90 ] drop-probability [ 0 100 ]`` ramps from 55 % to 90 % of the buffer;
- the PFC watchdog is ``pfc-watchdog`` in the profile: a stormed queue is disabled and its packets dropped for the
  recovery time (defaults: poll-interval 100 ms, detection 2 polls, recovery 200 ms).

Statements of the subject this parser does not know are unread in the scope of their port (or of every port for
the class-of-service statements shared by all); others (routing, system ...) are known.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field, replace

from pytest_gpufabric.parsers.junos_tree import Node, statement_tree
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.switches.facts import EcnQueue, PortConfig, SwitchConfig, Watchdog

TOOL = "junos-configuration"
_PORT = re.compile(r"^(et|xe|ge|mge|fte)-\d+/\d+/\d+(:\d+)?$")
# DSCP aliases of Junos (Junos OS Class of Service user guide, "Default DSCP and DSCP IPv6 Classifiers" aliases).
DSCP_ALIASES = {"be": 0, "ef": 46, **{f"cs{n}": 8 * n for n in range(1, 8)},
                **{f"af{c}{d}": 8 * c + 2 * d for c in range(1, 5) for d in range(1, 4)}}
WATCHDOG_DEFAULTS_MS = {"poll-interval": 100.0, "detection": 2.0, "recovery": 200.0}  # "PFC Watchdog" defaults
# The forwarding classes every QFX5xxx switch has without configuring them, and their queues (Juniper, "Understanding
# Default CoS Settings" (QFX Series), table "Default Forwarding Classes and Queue Mapping").
DEFAULT_CLASS_QUEUES = {"best-effort": 0, "be": 0, "fcoe": 3, "no-loss": 4, "network-control": 7, "nc": 7, "mcast": 8}


def _bits(code: str, width: int, what: str) -> int:
    """A code point: binary digits of ``width`` (``011010``) or, for DSCP, an alias (``af31``)."""
    if re.fullmatch(rf"[01]{{{width}}}", code):
        return int(code, 2)
    if width == 6 and code in DSCP_ALIASES:
        return DSCP_ALIASES[code]
    raise Unfit(f"{what}: {code!r} is not a {width}-bit code point")


def _list(words: tuple[str, ...]) -> list[str]:
    """``[ a b ]`` or a single word after a statement's keyword."""
    return [w for w in words if w not in ("[", "]")]


@dataclass
class _Cos:
    """The class-of-service definitions the ports refer to, by name."""

    classes: dict[str, tuple[int, int | None, bool]] = field(default_factory=dict)  # fc -> queue, pfc-priority, no-loss
    dscp_classifiers: dict[str, dict[int, str]] = field(default_factory=dict)  # name -> code point -> fc
    profiles: dict[str, Node] = field(default_factory=dict)  # congestion notification profiles
    scheduler_maps: dict[str, dict[str, str]] = field(default_factory=dict)  # map -> fc -> scheduler
    schedulers: dict[str, Node] = field(default_factory=dict)
    drop_profiles: dict[str, Node] = field(default_factory=dict)
    traffic_control_profiles: dict[str, str | None] = field(default_factory=dict)  # profile -> its scheduler map
    interfaces: list[Node] = field(default_factory=list)


_COS_KNOWN = {"shared-buffer", "dedicated-buffer", "dedicated-buffer-profile", "rewrite-rules", "host-outbound-traffic",
              "system-defaults", "forwarding-class-sets", "multi-destination", "forwarding-policy", "fabric",
              "copy-plp-all", "tri-color", "translation-table", "loss-priority-maps"}


def _cos(root: Node, reading: Reading) -> _Cos:
    cos = _Cos()
    top = root.first("class-of-service")
    if top is None:
        return cos
    for node in top.children:
        kind = node.words[0]
        if kind in _COS_KNOWN:
            reading.known(node.line)  # buffers, rewrite rules ...: nothing the checks judge
            continue
        with reading.row(node.line):
            if kind == "forwarding-classes":
                for entry in node.children:
                    with reading.row(entry.line):
                        _forwarding_class(entry, cos)
            elif kind == "classifiers":
                for classifier in node.children:
                    if classifier.words[0] == "dscp" and len(classifier.words) == 2:
                        cos.dscp_classifiers[classifier.words[1]] = _dscp_classifier(classifier, reading)
                    else:
                        reading.known(classifier.line)  # ieee-802.1, exp, inet-precedence classifiers
            elif kind == "congestion-notification-profile":
                cos.profiles.update({p.words[0]: p for p in node.children})
            elif kind == "scheduler-maps":
                for smap in node.children:
                    cos.scheduler_maps[smap.words[0]] = {e.words[1]: e.words[3] for e in smap.children
                                                         if len(e.words) == 4 and e.words[::2] == ("forwarding-class", "scheduler")}
            elif kind == "schedulers":
                cos.schedulers.update({s.words[0]: s for s in node.children})
            elif kind == "drop-profiles":
                cos.drop_profiles.update({d.words[0]: d for d in node.children})
            elif kind == "traffic-control-profiles":  # ETS: a forwarding class set's schedulers
                cos.traffic_control_profiles.update({t.words[0]: t.value("scheduler-map") for t in node.children})
            elif kind == "interfaces":
                cos.interfaces = node.children
            else:
                raise Unfit(f"class-of-service {kind}: a statement this parser does not know")
    return cos


def _forwarding_class(entry: Node, cos: _Cos) -> None:
    words = entry.words
    if len(words) >= 4 and words[0] == "class" and words[2] == "queue-num":
        rest = words[4:]
        no_loss = "no-loss" in rest
        priority = int(rest[rest.index("pfc-priority") + 1]) if "pfc-priority" in rest else None
        if set(rest) - {"no-loss", "pfc-priority", str(priority)}:
            raise Unfit(f"forwarding class {words[1]}: {' '.join(rest)!r} not understood")
        cos.classes[words[1]] = (integer(words[3], "queue-num"), priority, no_loss)
    elif len(words) == 3 and words[0] == "queue":  # the older form: queue 3 fcoe;
        cos.classes[words[2]] = (integer(words[1], "queue"), None, False)
    else:
        raise Unfit("a forwarding class in a form this parser does not know")


def _dscp_classifier(classifier: Node, reading: Reading) -> dict[int, str]:
    found: dict[int, str] = {}
    for fc in classifier.children:
        if fc.words[0] != "forwarding-class" or len(fc.words) != 2:
            reading.unread(fc.line, "a DSCP classifier entry this parser does not know")
            continue
        for entry in fc.children:
            with reading.row(entry.line):
                words = entry.words
                if len(words) < 4 or words[0] != "loss-priority" or words[2] != "code-points":
                    raise Unfit("expected 'loss-priority <level> code-points <points>'")
                points = [_bits(code, 6, "DSCP") for code in _list(words[3:])]
                found.update(dict.fromkeys(points, fc.words[1]))
    return found


def _matches(pattern: str, name: str) -> bool:
    return pattern == name or ("*" in pattern and fnmatch.fnmatchcase(name, pattern))


def _cos_of(cos: _Cos, port: str) -> Node | None:
    """The ``class-of-service interfaces`` entry of ``port``: its own, else the most specific wildcard."""
    candidates = [n for n in cos.interfaces if _matches(n.words[0], port)]
    return max(candidates, key=lambda n: ("*" not in n.words[0], len(n.words[0])), default=None)


def _classifier_name(entry: Node) -> tuple[str | None, Line | None]:
    """The DSCP classifier of the port entry, directly or on its ``unit 0`` / ``unit *``."""
    for holder in (entry, *entry.find("unit")):
        classifiers = holder.first("classifiers")
        if classifiers is not None and (dscp := classifiers.first("dscp")) is not None and len(dscp.words) == 2:
            return dscp.words[1], dscp.line
    return None, None


@dataclass
class _Pfc:
    no_drop: frozenset[int] | None  # None: an input code point could not be read, the set is not known
    tc_priorities: dict[int, int]


def _pfc(profile: Node | None, cos: _Cos, classifier: dict[int, str], reading: Reading, scope: str) -> _Pfc:
    """No-drop priorities (input side) and which priority pauses which queue (classes, output side)."""
    tc_priorities = {queue: prio for queue, prio, _ in cos.classes.values() if prio is not None}
    if profile is None:
        return _Pfc(frozenset(), tc_priorities)
    no_drop: set[int] = set()
    complete = True
    for side in profile.children:
        if side.words == ("input",):
            for kind in side.children:
                for point in kind.children:
                    try:
                        no_drop |= _input_point(kind.words[0], point, cos, classifier)
                        reading.used(point.line)
                    except Unfit as exc:
                        reading.unread(point.line, str(exc), scope)
                        complete = False
        elif side.words == ("output",):
            for kind in side.children:
                for point in kind.children:
                    with reading.row(point.line, scope):
                        queue = point.first("flow-control-queue")
                        if kind.words[0] != "ieee-802.1" or queue is None or len(point.words) != 2:
                            raise Unfit("an output code point this parser does not know")
                        for q in _list(queue.words[1:]):
                            tc_priorities[integer(q, "flow-control-queue")] = _bits(point.words[1], 3, "priority")
        elif side.words[0] == "pfc-watchdog":
            reading.known(side.line)
        else:
            reading.unread(side.line, "a congestion notification statement this parser does not know", scope)
    return _Pfc(frozenset(no_drop) if complete else None, tc_priorities)


def _input_point(kind: str, point: Node, cos: _Cos, classifier: dict[int, str]) -> set[int]:
    if len(point.words) != 2 or point.words[0] != "code-point" or not point.find("pfc"):
        raise Unfit("an input code point without 'pfc' or in a form this parser does not know")
    if kind == "ieee-802.1":
        return {_bits(point.words[1], 3, "priority")}
    if kind == "dscp":
        dscp = _bits(point.words[1], 6, "DSCP")
        fc = classifier.get(dscp)
        priority = cos.classes.get(fc, (0, None, False))[1] if fc else None
        if priority is None:
            raise Unfit(f"DSCP {dscp} has PFC but its forwarding class ({fc or 'none on this port'}) has no pfc-priority")
        return {priority}
    raise Unfit(f"input {kind}: a kind of code point this parser does not know")


def _dscp_classes(cos: _Cos, name: str | None, line: Line | None, reading: Reading, scope: str) -> dict[int, int] | None:
    """The queue each DSCP code point of the port's classifier ``name`` lands in ({}: no DSCP classifier on the port);
    None where the classification is not known: a classifier that is not defined in this configuration, or a code
    point whose forwarding class is neither defined nor one of the switch's default classes (its unread line says
    which)."""
    if name is None:
        return {}
    if name not in cos.dscp_classifiers:
        reading.unread(line or reading.lines[0], f"DSCP classifier {name} is not defined in this configuration: the "
                                                  f"classification of {scope} is not known", scope)
        return None
    found, unknown = {}, set()
    for dscp, fc in cos.dscp_classifiers[name].items():
        queue = cos.classes[fc][0] if fc in cos.classes else DEFAULT_CLASS_QUEUES.get(fc)
        if queue is None:
            unknown.add(fc)
        else:
            found[dscp] = queue
    if unknown:
        reading.unread(line or reading.lines[0], f"DSCP classifier {name}: forwarding class {', '.join(sorted(unknown))} "
                                                  f"is not defined: the classification of {scope} is not known", scope)
        return None
    return found


def _drop_ramp(profile: Node) -> tuple[float, float, int]:
    """(fill level where marking starts, where it reaches its maximum, the maximum %) of a drop profile."""
    points: list[tuple[float, float]] = []
    interpolate = profile.first("interpolate")
    if interpolate is not None:
        levels = next((_list(n.words[1:]) for n in interpolate.children if n.words[0] == "fill-level"), [])
        chances = next((_list(n.words[1:]) for n in interpolate.children if n.words[0] == "drop-probability"), [])
        points = list(zip(map(float, levels), map(float, chances)))
        if len(levels) != len(chances) or len(points) < 2:
            raise Unfit(f"drop profile {profile.words[0]}: fill-level and drop-probability lists do not pair up")
    else:
        for node in profile.children:
            words = node.words
            if len(words) == 4 and words[0] == "fill-level" and words[2] == "drop-probability":
                points.append((float(words[1]), float(words[3])))
            else:
                raise Unfit(f"drop profile {profile.words[0]}: {' '.join(words)!r} not understood")
    if len(points) < 2:
        raise Unfit(f"drop profile {profile.words[0]}: fewer than two points")
    points.sort()
    start = max(level for level, chance in points if chance == points[0][1])
    top = max(chance for _, chance in points)
    end = min(level for level, chance in points if chance == top)
    return start, end, int(top)


def _scheduler_maps(cos: _Cos, entry: Node | None) -> list[str | None]:
    """The scheduler maps of a port: its own, and those of the traffic control profiles of its forwarding class sets
    (ETS hierarchical scheduling)."""
    if entry is None:
        return []
    found = [entry.value("scheduler-map")]
    pending = list(entry.find("forwarding-class-set"))
    while pending:  # forwarding-class-set <set> { output-traffic-control-profile <profile>; }, nested or flat
        node = pending.pop()
        pending.extend(node.children)
        if node.words[0] == "output-traffic-control-profile" and len(node.words) == 2:
            found.append(cos.traffic_control_profiles.get(node.words[1]))
    return [name for name in found if name]


def _ecn(cos: _Cos, scheduler_maps: list[str | None], reading: Reading, scope: str) -> tuple[EcnQueue, ...]:
    queues = []
    entries = {fc: name for smap in scheduler_maps if smap for fc, name in cos.scheduler_maps.get(smap, {}).items()}
    for fc, name in entries.items():
        scheduler = cos.schedulers.get(name)
        if fc not in cos.classes or scheduler is None:
            continue
        queue = cos.classes[fc][0]
        if not scheduler.find("explicit-congestion-notification"):
            queues.append(EcnQueue(queue, False))
            continue
        profile_ref = next((n for n in scheduler.children if n.words[0] == "drop-profile-map"), None)
        with reading.row(profile_ref.line if profile_ref else scheduler.line, scope):
            if profile_ref is None or len(profile_ref.words) < 3 or profile_ref.words[-2] != "drop-profile":
                raise Unfit(f"scheduler {name}: ECN without a drop profile this parser can read")
            drop = cos.drop_profiles.get(profile_ref.words[-1])
            if drop is None:
                raise Unfit(f"scheduler {name}: drop profile {profile_ref.words[-1]} is not defined")
            start, end, top = _drop_ramp(drop)
            queues.append(EcnQueue(queue, True, start, end, top, "percent"))
    return tuple(sorted(queues, key=lambda q: q.queue))


_LINK_KNOWN = {"description", "unit", "native-vlan-id", "number-of-sub-ports", "flexible-vlan-tagging", "vlan-tagging",
               "encapsulation", "esi", "aggregated-ether-options", "optics-options", "hold-time", "damping",
               "unused"}  # unused: a port marked as not in use (it carries nothing the checks judge)


@dataclass
class _Link:
    mtu: int | None = None
    speed: str | None = None
    fec: str | None = None
    pause: str | None = None  # the platform's default where the configuration says nothing (it differs: MX on, QFX off)
    disabled: bool = False


def _link(node: Node, reading: Reading) -> _Link:
    link = _Link()
    for child in node.children:
        key = child.words[0]
        if key in _LINK_KNOWN:
            continue  # known already: description, units and their families ...
        if key in ("mtu", "speed") and len({n.words for n in node.find(key)}) > 1:  # given twice, differently: damaged
            reading.unread(child.line, f"{key} given {len(node.find(key))} times in {node.words[0]}: not known", node.words[0])
            continue
        with reading.row(child.line, node.words[0]):
            if key == "mtu" and len(child.words) == 2:
                link.mtu = integer(child.words[1], "mtu")
            elif key == "speed" and len(child.words) == 2:
                link.speed = child.words[1]
            elif key == "disable" and len(child.words) == 1:
                link.disabled = True
            elif key in ("gigether-options", "ether-options"):
                for option in child.children:
                    with reading.row(option.line, node.words[0]):
                        _link_option(option, link)
            else:
                raise Unfit(f"interface {node.words[0]}: {key!r} is a statement this parser does not know")
    return link


def _link_option(option: Node, link: _Link) -> None:
    words = option.words
    if words[0] == "fec" and len(words) == 2:
        link.fec = words[1]
    elif words == ("flow-control",):
        link.pause = "on"
    elif words == ("no-flow-control",):
        link.pause = "off"
    elif words[0] in ("802.3ad", "auto-negotiation", "no-auto-negotiation", "loopback", "no-loopback", "speed",
                      "link-mode"):
        pass
    else:
        raise Unfit(f"{words[0]}: an ethernet option this parser does not know")


def _port_watchdog(cos: _Cos, profile_name: str | None, reading: Reading, scope: str) -> Watchdog:
    """The PFC watchdog of a port's congestion notification profile (disabled without ``pfc-watchdog``)."""
    node = cos.profiles.get(profile_name) if profile_name else None
    watchdog = node.first("pfc-watchdog") if node else None
    if watchdog is None:
        return Watchdog(False)
    values = dict(WATCHDOG_DEFAULTS_MS)
    for child in watchdog.children:
        with reading.row(child.line, scope):
            if child.words[0] not in WATCHDOG_DEFAULTS_MS or len(child.words) != 2:
                raise Unfit("a pfc-watchdog setting this parser does not know")
            values[child.words[0]] = float(integer(child.words[1], child.words[0]))
    poll = values["poll-interval"]
    return Watchdog(True, "drop", values["detection"] * poll, values["recovery"], poll)


def _watchdog(ports: dict[str, PortConfig]) -> Watchdog | None:
    """The switch's watchdog as its ports have it: the first enabled one (each port keeps its own)."""
    return next((p.watchdog for p in ports.values() if p.watchdog is not None and p.watchdog.enabled), None)


def _physical_interfaces(root: Node) -> list[Node]:
    """The physical ports of the ``interfaces`` hierarchy, a port printed in two blocks (a damaged output) as one."""
    merged: dict[str, Node] = {}
    interfaces = root.first("interfaces")
    for node in interfaces.children if interfaces else ():
        if not _PORT.match(node.words[0]):
            continue
        if node.words[0] in merged:
            merged[node.words[0]].children.extend(node.children)
        else:
            merged[node.words[0]] = Node(node.words, node.line, list(node.children))
    return list(merged.values())


@parser(TOOL, "show configuration (Junos, QFX): PFC, DSCP classification, ECN, MTU, speed, FEC, flow control per port; PFC watchdog")
def parse_configuration(text: str) -> Parsed[SwitchConfig]:
    reading = Reading(TOOL, text)
    root = statement_tree(reading)
    cos = _cos(root, reading)
    ports: dict[str, PortConfig] = {}
    for node in _physical_interfaces(root):
        name = node.words[0]
        link = _link(node, reading)
        entry = _cos_of(cos, name)
        profile_name = entry.value("congestion-notification-profile") if entry else None
        classifier_name, classifier_line = _classifier_name(entry) if entry else (None, None)
        classifier = cos.dscp_classifiers.get(classifier_name, {}) if classifier_name else {}
        pfc = _pfc(cos.profiles.get(profile_name) if profile_name else None, cos, classifier, reading, name)
        dscp_to_tc = _dscp_classes(cos, classifier_name, classifier_line, reading, name)
        priority_queues = {prio: queue for queue, prio in pfc.tc_priorities.items()}
        ports[name] = PortConfig(
            name=name, pfc_enabled=bool(pfc.no_drop) if pfc.no_drop is not None else None, no_drop_priorities=pfc.no_drop,
            ecn_queues=_ecn(cos, _scheduler_maps(cos, entry), reading, name),
            dscp_trusted=None if dscp_to_tc is None else bool(classifier_name), dscp_to_tc=dscp_to_tc, mtu=link.mtu, speed=link.speed, fec=link.fec,
            link_pause=link.pause, tc_priorities=pfc.tc_priorities, priority_queues=priority_queues,
            routed=None, watchdog=_port_watchdog(cos, profile_name, reading, name), sources=(name,),
        )
        reading.used(node.line)
    for name, port in list(ports.items()):  # a channel of a breakout port runs at the speed the parent sets for each
        parent = ports.get(name.split(":")[0])
        if ":" in name and port.speed is None and parent is not None and parent.speed is not None:
            ports[name] = replace(port, speed=parent.speed)
    return reading.done(SwitchConfig(ports, _watchdog(ports)), nothing="no physical interface (et-, xe-, ge-)")
