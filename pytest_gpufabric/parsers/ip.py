"""iproute2: ``ip -o link show``, ``ip -o -4 addr show``, ``ip rule show`` and ``ip route list table N``.

Each read by the parsing rule: one record per line (``ip -o``) or per interface block (the plain form, whose
indented lines belong to the interface above; a pasted copy may have lost the indentation). A line the parser
does not understand (an address an author replaced by ``nn.nn.nn.nn``, a record cut short) costs only its
own facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, ip_interface
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

LINK_TOOL = "ip-link"
ADDR_TOOL = "ip-addr"
RULE_TOOL = "ip-rule"
ROUTE_TOOL = "ip-route"

LINK_LINE = re.compile(r"^(\d+):\s+([^:\s@]+)(?:@(\S+?))?:\s+<([^>]*)>\s*(.*)$")
INTERFACE = re.compile(r"^(\d+):\s+([^:\s@]+)(?:@\S+?)?:\s+(<[^>]*>.*)?$")  # "2: ens3: <...>" or "2: ens3    inet ..."
ADDR_ONELINE = re.compile(r"^(\d+):\s+(\S+)\s+(inet6?)\s+(.*)$")
INET = re.compile(r"^inet\s+(\S+)(.*)$")
# Lines of an interface block that hold no IPv4 fact: the link layer, IPv6, lifetimes, alternative names.
OTHER_ADDR_LINE = re.compile(r"^(link/\S+|inet6\s|valid_lft\s|altname\s|prop list|vf \d+|alias\s)")
# ``ip -br addr``: name, operational state, then every address of the interface (no index).
ADDR_BRIEF = re.compile(r"^([^\s@]+)(?:@\S+)?\s+(UP|DOWN|UNKNOWN|LOWERLAYERDOWN|DORMANT|NOTPRESENT|TESTING)(?:\s+(.*))?$")


def _word_after(text: str, keyword: str) -> Optional[str]:
    match = re.search(rf"(?:^|\s){re.escape(keyword)}\s+(\S+)", text)
    return match.group(1) if match else None


@dataclass(frozen=True)
class Link:
    """One interface of ``ip link``: MTU, operational state and the flags between angle brackets."""

    index: int
    name: str
    parent: Optional[str]
    flags: frozenset[str]
    mtu: int
    state: Optional[str]
    mac: Optional[str]

    @property
    def admin_up(self) -> bool:
        return "UP" in self.flags

    @property
    def carrier(self) -> bool:
        return "LOWER_UP" in self.flags


@dataclass(frozen=True)
class Links:
    links: tuple[Link, ...]

    def get(self, name: str) -> Optional[Link]:
        return next((link for link in self.links if link.name == name), None)


MAC = re.compile(r"link/\w+\s+([0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})+)")


@parser(LINK_TOOL, "ip -o link show: per interface name, mtu, state, flags, MAC")
def parse_ip_link(text: str) -> Parsed[Links]:
    reading = Reading(LINK_TOOL, text)
    refuse_unfinished_line(reading, text)
    blocks: list[tuple[Line, list[Line]]] = []
    for line in reading.content():
        if line.text[:1].isspace() and blocks:
            blocks[-1][1].append(line)  # a line of the plain form's block
        else:
            blocks.append((line, []))
    links = []
    for head, rest in blocks:
        record = " ".join([head.stripped, *(line.stripped for line in rest)])
        match = LINK_LINE.match(record)
        if not match:
            reading.unread(head, "expected '<index>: <name>: <FLAGS> mtu ...'")
            continue
        index, name, parent, flags, tail = match.groups()
        with reading.row(head, scope=name):
            mtu = _word_after(tail, "mtu")
            if mtu is None:
                raise Unfit(f"{name}: no mtu")
            mac = MAC.search(tail)
            links.append(Link(index=integer(index, f"{name} index"), name=name, parent=parent,
                              flags=frozenset(flag for flag in flags.split(",") if flag), mtu=integer(mtu, f"{name} mtu"),
                              state=_word_after(tail, "state"), mac=mac.group(1).lower() if mac else None))  # fmt: skip
        for line in rest:
            if reading.outcome(head) == "used":
                reading.known(line)
            else:
                reading.unread(line, f"in the record of {name}, which was not read", name)
    return reading.done(Links(tuple(links)), nothing="no '<index>: <name>: <FLAGS> mtu ...' line")


@dataclass(frozen=True)
class InterfaceAddresses:
    """Addresses as printed (``192.0.2.2/24``, validated); plain strings keep the facts JSON-ready. ``index``:
    the interface index, where the output gives it (not in ``grep``'d lines)."""

    name: str
    addresses: tuple[str, ...]
    index: Optional[int] = None

    @property
    def ipv4(self) -> tuple[IPv4Interface, ...]:
        return tuple(IPv4Interface(address) for address in self.addresses)


@dataclass(frozen=True)
class Addresses:
    """IPv4 addresses per interface, in the order ``ip`` printed them."""

    interfaces: tuple[InterfaceAddresses, ...]

    def of(self, name: str) -> tuple[IPv4Interface, ...]:
        return next((entry.ipv4 for entry in self.interfaces if entry.name == name), ())


def _ipv4(value: str, name: str) -> str:
    try:
        address = ip_interface(value)
    except ValueError:
        raise Unfit(f"{name}: {value!r} is not an address/prefix") from None
    if not isinstance(address, IPv4Interface):
        raise Unfit(f"{name}: {value!r} is not IPv4")
    if "/" not in value:
        raise Unfit(f"{name}: {value!r} has no prefix length")
    return str(address)


def _brief_addresses(name: str, words: str) -> list[str]:
    """The IPv4 addresses of an ``ip -br addr`` line (its IPv6 ones are known and left); ``Unfit`` on a word that
    is no address/prefix."""
    found = []
    for word in words.split():
        try:
            address = ip_interface(word)
        except ValueError:
            raise Unfit(f"{name}: {word!r} is not an address/prefix") from None
        if "/" not in word:
            raise Unfit(f"{name}: {word!r} has no prefix length")
        if isinstance(address, IPv4Interface):
            found.append(str(address))
    return found


@parser(ADDR_TOOL, "ip -o -4 addr show (or ip addr, ip -br addr, or its 'inet' lines): IPv4 interfaces per device, "
                   "interface index")
def parse_ip_addr(text: str) -> Parsed[Addresses]:
    reading = Reading(ADDR_TOOL, text)
    refuse_unfinished_line(reading, text)
    found: dict[str, list[str]] = {}
    indexes: dict[str, int] = {}
    current: tuple[str, int] | None = None  # the interface of the plain form's block
    for line in reading.content():
        body = line.stripped.split("\\")[0].strip()  # ip -o puts the lifetimes after a backslash
        oneline = ADDR_ONELINE.match(body)
        interface = INTERFACE.match(body)
        brief = ADDR_BRIEF.match(body) if not (oneline or interface) else None
        if brief:
            name = brief.group(1)
            with reading.row(line, scope=name):
                addresses = _brief_addresses(name, brief.group(3) or "")
                if addresses:
                    found.setdefault(name, []).extend(addresses)
        elif oneline:
            index, name, family, rest = oneline.groups()
            if family == "inet6":
                reading.known(line)
                continue
            with reading.row(line, scope=name):
                address, number = _ipv4(rest.split()[0], name), integer(index, f"{name} index")
                indexes[name] = number
                found.setdefault(name, []).append(address)
        elif interface:
            current = (interface.group(2), int(interface.group(1)))
            indexes.setdefault(current[0], current[1])
            reading.used(line)
        elif body.startswith("inet "):
            inet = INET.match(body)
            label = body.split()[-1]
            name = current[0] if current else label
            with reading.row(line, scope=name):
                address = _ipv4(inet.group(1) if inet else "", name)
                found.setdefault(name, []).append(address)
        elif OTHER_ADDR_LINE.match(body):
            reading.known(line)
        else:
            reading.unread(line, "expected an interface line or an 'inet <address>/<prefix>' line")
    interfaces = tuple(InterfaceAddresses(name, tuple(addrs), indexes.get(name)) for name, addrs in found.items())
    return reading.done(Addresses(interfaces), nothing="no 'inet <address>/<prefix>' line")


@dataclass(frozen=True)
class Rule:
    """One policy-routing rule: ``<priority>: from <selector> lookup <table>``."""

    priority: int
    source: str  # "all" or an address / prefix
    destination: Optional[str]  # the "to" selector, when present
    table: str
    text: str

    @property
    def source_network(self) -> Optional[IPv4Network]:
        if self.source == "all":
            return None
        return IPv4Network(self.source, strict=False)


@parser(RULE_TOOL, "ip rule show: priority, from selector and lookup table of each rule")
def parse_ip_rule(text: str) -> Parsed[tuple[Rule, ...]]:
    reading = Reading(RULE_TOOL, text)
    refuse_unfinished_line(reading, text)
    rules = []
    for line in reading.content():
        priority, sep, rest = line.stripped.partition(":")
        source, table = _word_after(rest, "from"), _word_after(rest, "lookup") or _word_after(rest, "table")
        with reading.row(line):
            if not sep or source is None or table is None:
                raise Unfit("expected '<priority>: from <source> lookup <table>'")
            if source != "all":
                try:
                    IPv4Network(source, strict=False)
                except ValueError:
                    raise Unfit(f"rule source {source!r} is not an IPv4 address or prefix") from None
            rules.append(Rule(priority=integer(priority, "rule priority"), source=source,
                              destination=_word_after(rest, "to"), table=table, text=line.stripped))  # fmt: skip
    return reading.done(tuple(rules), nothing="no '<priority>: from <source> lookup <table>' line")


@dataclass(frozen=True)
class Nexthop:
    """One path of a multipath route (``nexthop via <gateway> dev <device> weight <n>``)."""

    gateway: Optional[str]
    device: Optional[str]


# Route types ``ip route`` prints before the destination; a route without one is unicast.
ROUTE_TYPES = frozenset({"unicast", "local", "broadcast", "multicast", "anycast", "blackhole", "unreachable", "prohibit",
                         "throw", "nat"})


@dataclass(frozen=True)
class Route:
    """One route: destination (``default`` or a prefix), gateway, device, source and the whole line. ``kind`` is
    the route type (``blackhole``, ``unreachable``... a route that forwards nothing); ``nexthops`` the paths of a
    multipath route, printed on the lines under it."""

    destination: str
    gateway: Optional[str]  # validated IPv4 address, as printed
    device: Optional[str]
    source: Optional[str]
    text: str
    kind: str = "unicast"
    nexthops: tuple[Nexthop, ...] = ()

    @property
    def gateway_address(self) -> Optional[IPv4Address]:
        return IPv4Address(self.gateway) if self.gateway else None

    @property
    def is_default(self) -> bool:
        """A default route that forwards: ``unreachable default`` (what policy-routing setups put last in a
        table) sends nothing anywhere."""
        return self.destination in ("default", "0.0.0.0/0") and self.kind == "unicast"


def _address(value: Optional[str], what: str) -> Optional[str]:
    if value is None:
        return None
    try:
        return str(IPv4Address(value))
    except ValueError:
        raise Unfit(f"{what} {value!r} is not an IPv4 address") from None


NEXTHOP = re.compile(r"^nexthop(\s|$)")


NEXTHOP_FLAGS = frozenset({"onlink", "pervasive", "dead", "linkdown", "offload", "trap", "rt_offload", "rt_trap"})


def _nexthop(line: Line) -> Nexthop:
    """``nexthop via <gateway> dev <device> weight <n> [flags]``: every word a known key with its value or a
    flag, else ``Unfit``."""
    words = line.text.split()[1:]
    values: dict[str, str] = {}
    while words:
        word = words.pop(0)
        if word in ("via", "dev", "weight") and words and word not in values:
            values[word] = words.pop(0)
        elif word not in NEXTHOP_FLAGS:
            raise Unfit(f"nexthop: unknown word {word!r}")
    if "via" not in values and "dev" not in values:
        raise Unfit("nexthop without 'via' or 'dev'")
    return Nexthop(_address(values.get("via"), "nexthop gateway"), values.get("dev"))


@parser(ROUTE_TOOL, "ip route list [table N]: destination, gateway, device, source, type and nexthops of each route")
def parse_ip_route(text: str) -> Parsed[tuple[Route, ...]]:
    reading = Reading(ROUTE_TOOL, text)
    refuse_unfinished_line(reading, text)
    routes: list[Route] = []
    last: Optional[Line] = None  # the line of the route above, whose nexthop lines follow it (indented)
    for line in reading.content():
        words = line.text.split()
        if NEXTHOP.match(line.stripped) and line.text[:1].isspace():
            with reading.row(line, scope=routes[-1].destination if last is not None else ""):
                if last is None:
                    raise Unfit("a nexthop line under no route read")
                hop = _nexthop(line)
                routes[-1] = replace(routes[-1], nexthops=routes[-1].nexthops + (hop,))
            continue
        kind = words[0] if words[0] in ROUTE_TYPES and len(words) > 1 else "unicast"
        destination = words[1] if kind != "unicast" or words[0] == "unicast" else words[0]
        last = None
        with reading.row(line, scope=destination):
            if destination != "default":
                try:
                    IPv4Network(destination, strict=False)
                except ValueError:
                    raise Unfit("expected 'default' or a prefix first") from None
            routes.append(Route(destination=destination, gateway=_address(_word_after(line.text, "via"), "gateway"),
                                device=_word_after(line.text, "dev"), source=_address(_word_after(line.text, "src"), "source"),
                                text=line.stripped, kind=kind))  # fmt: skip
            last = line
    return reading.done(tuple(routes), nothing="no route line ('default' or a prefix first)")
