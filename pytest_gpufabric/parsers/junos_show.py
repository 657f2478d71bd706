"""Junos ``show interfaces`` / ``show interfaces extensive`` (text), on the parsing rule (parsers/reading.py): per
physical interface its state, MTU, speed, FEC mode and link-level flow control, its input and output drops, the
drops of each egress queue (``Queue counters``) and the PFC frames received and sent per priority (``MAC Priority
Flow Control Statistics``).

The physical interface's fields are ``Key: value`` lists separated by commas and wrapped over lines; a field
whose value this parser reads (MTU, Speed, Flow control, FEC) must have the form it knows, other fields are
known. Sections outside the subject (logical interfaces, MAC, filter and PCS statistics, CoS information ...)
are known; a line of a section of the subject in a form this parser does not know is unread for its port."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.switches.facts import PortCounters, PortStatus

TOOL = "junos-interfaces"
_HEAD = re.compile(r"^Physical interface: (\S+?),? (Enabled|Administratively down|Disabled), Physical link is (Up|Down)$")
_HEAD_SHORT = re.compile(r"^Physical interface: (\S+)$")
_FIELD = re.compile(r"([A-Z][A-Za-z0-9 /().-]*?)\s*:\s*([^,]*)")
_SPEED = re.compile(r"^(\d+(?:\.\d+)?)(mbps|Gbps|gbps|Tbps|Kbps|kbps)$")
_SPEED_GBPS = {"kbps": 1e-6, "mbps": 1e-3, "gbps": 1.0, "tbps": 1000.0}
_PFC_ROW = re.compile(r"^Priority\s*:\s*([0-7])\s+([\d,]+)\s+([\d,]+)$")
_QUEUE_ROW = re.compile(r"^(\d+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)$")
_ERRORS = re.compile(r"^(Input|Output) errors:$")
# ``show interfaces queue``: one block per queue, its drops on lines of their own
_QUEUE_HEAD = re.compile(r"^Queue: (\d+), Forwarding classes: \S.*$")
_QUEUE_DROPS = re.compile(r"^(Tail|RED|Total)-dropped packets ?: (\d[\d,]*|Not Available)(?: +\d[\d,]* pps)?$")
_QUEUE_KNOWN = re.compile(r"^(Queued|Transmitted):$|^[A-Z][A-Za-z -]*: (\d[\d,]*|Not Available)( +\d[\d,]* [pb]ps)?$")
_ECHO = re.compile(r"^(\S*[>#%] ?)?show interfaces\b.*$|^\{(master|backup|primary|linecard)[^}]*\}$")
# Sections of the extensive output outside the subject: their lines hold nothing the checks judge.
_OTHER_SECTIONS = ("Logical interface", "Traffic statistics:", "IPv6 transit statistics:", "MAC statistics:",
                   "Filter statistics:", "PCS statistics", "CoS information:", "Packet Forwarding Engine configuration:",
                   "Label-switched interface", "Dropped traffic statistics", "Ethernet FEC statistics", "MACSec statistics",
                   "Queue number:", "Interface transmit statistics", "Autonegotiation information:", "Local resolution:",
                   "Link partner:", "Input rate", "Output rate", "PRBS Mode", "Preclassifier statistics:",
                   "Active alarms", "Active defects", "Ethernet segment value", "Ethernet FEC Mode", "Media type")
_READ_FIELDS = {"MTU", "Speed", "Flow control", "FEC Mode", "Ethernet FEC Mode"}


@dataclass
class _Port:
    name: str
    up: bool
    fields: dict[str, str] = field(default_factory=dict)
    drops: dict[str, int] = field(default_factory=dict)
    queues: dict[str, int] = field(default_factory=dict)
    pfc_rx: dict[int, int] = field(default_factory=dict)
    pfc_tx: dict[int, int] = field(default_factory=dict)
    queue_detail: dict[str, dict[str, int | None]] = field(default_factory=dict)  # show interfaces queue: kind -> drops

    def status(self) -> PortStatus:
        mtu = self.fields.get("MTU")
        fec = self.fields.get("Ethernet FEC Mode") or self.fields.get("FEC Mode")
        pause = {"Enabled": "on", "Disabled": "off"}.get(self.fields.get("Flow control", ""))
        return PortStatus(self.name, self.up, _speed(self.fields.get("Speed")), int(mtu) if mtu and mtu.isdigit() else None,
                          fec.strip() if fec else None, pause)

    def queue_drops(self) -> dict[str, int]:
        """Drops per egress queue: the counters table of the extensive form, or the queue blocks of ``show interfaces
        queue`` (Total-dropped, else Tail-dropped plus RED-dropped where both are shown)."""
        drops = dict(self.queues)
        for queue, kinds in self.queue_detail.items():
            if kinds.get("Total") is not None:
                drops[queue] = kinds["Total"]  # type: ignore[assignment]
            elif kinds.get("Tail") is not None and kinds.get("RED") is not None:
                drops[queue] = kinds["Tail"] + kinds["RED"]  # type: ignore[operator]
        return drops

    def counters(self) -> PortCounters:
        return PortCounters(self.name, pfc_rx=sum(self.pfc_rx.values()) if self.pfc_rx else None,
                            pfc_tx=sum(self.pfc_tx.values()) if self.pfc_tx else None,
                            in_discards=self.drops.get("Input"), out_discards=self.drops.get("Output"),
                            pfc_rx_priorities=dict(self.pfc_rx), pfc_tx_priorities=dict(self.pfc_tx),
                            queue_drops=self.queue_drops())


def _speed(text: str | None) -> float | None:
    match = _SPEED.match(text.strip()) if text else None
    return float(match.group(1)) * _SPEED_GBPS[match.group(2).lower()] if match else None


def _fields(port: _Port, words: str) -> None:
    """A line of ``Key: value`` fields; the values this parser reads must have their form."""
    pairs = _FIELD.findall(words)
    if not pairs or not words[0].isupper():
        raise Unfit("not a list of 'Key: value' fields")
    for key, value in pairs:
        key, value = key.strip(), value.strip()
        if key in _READ_FIELDS:
            if key == "MTU" and not value.isdigit() and value != "Unlimited":
                raise Unfit(f"MTU: expected a number, found {value!r}")
            if key == "Speed" and _speed(value) is None and value not in ("Unspecified", "Unlimited", "Auto", "auto"):
                raise Unfit(f"Speed: expected e.g. 400Gbps, found {value!r}")
            if key == "Flow control" and value not in ("Enabled", "Disabled", "Symmetric", "Asymmetric",
                                                      "Symmetric/Asymmetric", "None"):
                raise Unfit(f"Flow control: {value!r} not understood")
        port.fields.setdefault(key, value)


def _errors(port: _Port, direction: str, words: str) -> None:
    match = re.search(r"(?:^|, )Drops: ([\d,]+)(?:,|$)", words)
    if match is None:
        raise Unfit(f"{direction} errors: no 'Drops: N' field")
    port.drops[direction] = integer(match.group(1), f"{direction} drops")


def _queue_detail(port: _Port, queue: str, words: str) -> None:
    """A line of a queue's block in ``show interfaces queue``: its drops, or a counter this parser does not judge."""
    if match := _QUEUE_DROPS.match(words):
        value = None if match.group(2) == "Not Available" else integer(match.group(2), f"{match.group(1)}-dropped packets")
        port.queue_detail.setdefault(queue, {})[match.group(1)] = value
    elif not _QUEUE_KNOWN.match(words):
        raise Unfit(f"queue {queue}: a line of a form this parser does not know")


def _section(words: str) -> str | None:
    """The section a line opens: ``errors``, ``queues``, ``pfc``, ``other`` (outside the subject), or None."""
    if _ERRORS.match(words):
        return "errors"
    if words.startswith("Queue counters:"):
        return "queues"
    if words.startswith("MAC Priority Flow Control Statistics"):
        return "pfc"
    if words.startswith(_OTHER_SECTIONS):
        return "other"
    return None


@parser(TOOL, "show interfaces [extensive] (Junos): state, MTU, speed, FEC, flow control, drops, queue drops, PFC per priority")
def parse_interfaces(text: str) -> Parsed[dict[str, tuple[PortStatus, PortCounters]]]:
    reading = Reading(TOOL, text)
    ports: dict[str, _Port] = {}
    port: _Port | None = None
    section: str | None = None
    errors_of: str | None = None
    queue_of = ""  # the queue whose block of `show interfaces queue` is being read
    physical_indent = 0
    logical = False
    egress = True
    for line in reading.content():
        words = line.words
        if (head := _HEAD.match(words)) is not None:
            port = ports.setdefault(head.group(1), _Port(head.group(1), head.group(2) == "Enabled" and head.group(3) == "Up"))
            section, physical_indent, logical, egress = None, line.indent, False, True
            reading.used(line)
            continue
        if words.startswith("Logical interface "):
            logical = True  # the physical interface's own facts are above; a logical unit's counters are its own
            if port is None:  # `show interfaces <unit>`: understood, and there is no physical interface to report
                reading.used(line)
                continue
        if logical:
            reading.known(line)
            continue
        if _ECHO.match(words):
            reading.known(line)  # the prompt and command of a capture, the routing engine banner
            continue
        if port is None:
            continue
        if head := _QUEUE_HEAD.match(words):  # show interfaces queue
            section, queue_of = ("queue-detail" if egress else "other"), head.group(1)
            reading.known(line)
            continue
        if words.startswith(("Ingress queues:", "Egress queues:")):
            egress = words.startswith("Egress")  # the queue counters below are of this direction
            section = "other"
            reading.known(line)
            continue
        opened = _section(words)
        if opened == "queues" and not egress:
            opened = "other"  # ingress queue counters: not the egress drops SW-007 compares
        if opened is not None and (opened != "other" or line.indent <= physical_indent + 2 or words.startswith("Logical")):
            section = opened
            errors_of = _ERRORS.match(words).group(1) if opened == "errors" else None  # type: ignore[union-attr]
            reading.known(line)
            continue
        scope = port.name
        if section == "other":
            reading.known(line)
        elif section == "errors":
            with reading.row(line, scope):
                if errors_of in port.drops or "Drops:" in words:
                    if "Drops:" in words:
                        _errors(port, str(errors_of), words)
                elif not re.match(r"^[A-Z][A-Za-z0-9 /-]*: [\d,]+", words):
                    raise Unfit("not a list of error counters")
        elif section == "queues":
            with reading.row(line, scope):
                match = _QUEUE_ROW.match(words)
                if match is None:
                    raise Unfit("a queue counters row of a form this parser does not know")
                port.queues[match.group(1)] = integer(match.group(4), "Dropped packets")
        elif section == "queue-detail":
            with reading.row(line, scope):
                _queue_detail(port, queue_of, words)
        elif section == "pfc":
            with reading.row(line, scope):
                match = _PFC_ROW.match(words)
                if match is None:
                    raise Unfit("a PFC statistics row of a form this parser does not know")
                port.pfc_rx[int(match.group(1))] = integer(match.group(2), "PFC received")
                port.pfc_tx[int(match.group(1))] = integer(match.group(3), "PFC sent")
        elif ":" in words:
            with reading.row(line, scope):
                _fields(port, words)
        else:
            reading.unread(line, "a line of the physical interface this parser does not know", scope)
    facts = {name: (p.status(), p.counters()) for name, p in ports.items()}
    return reading.done(facts, nothing="no 'Physical interface: <name>, Enabled, Physical link is Up' line")
