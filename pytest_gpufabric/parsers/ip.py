"""iproute2: ``ip -o link show``, ``ip -o -4 addr show``, ``ip rule show`` and ``ip route list table N``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, ip_interface
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_int

LINK_TOOL = "ip-link"
ADDR_TOOL = "ip-addr"
RULE_TOOL = "ip-rule"
ROUTE_TOOL = "ip-route"

LINK_LINE = re.compile(r"^(\d+):\s+([^:\s@]+)(?:@(\S+?))?:\s+<([^>]*)>\s*(.*)$")
ADDR_PREFIX = re.compile(r"^\d+:\s+(\S+)\s+inet\s")
INET = re.compile(r"(?:^|\s)inet\s+(\S+)")


def _join_continuations(lines: list[str]) -> list[str]:
    """One record per line: ``ip -o`` records as they are, indented lines of the plain form appended."""
    records: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        if line[:1].isspace() and records and not line.lstrip().startswith("inet"):
            records[-1] += " " + line.strip()
        else:
            records.append(line.strip())
    return records


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


@parser(LINK_TOOL, "ip -o link show: per interface name, mtu, state, flags, MAC")
def parse_ip_link(text: str) -> Links:
    links = []
    for record in _join_continuations(clean_lines(LINK_TOOL, text)):
        match = LINK_LINE.match(record)
        if not match:
            fail(LINK_TOOL, f"expected '<index>: <name>: <FLAGS> mtu ...', found {record[:80]!r}")
        index, name, parent, flags, rest = match.groups()
        mtu = _word_after(rest, "mtu")
        if mtu is None:
            fail(LINK_TOOL, f"{name}: no mtu in {record[:80]!r}")
        mac = re.search(r"link/\w+\s+([0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})+)", rest)
        links.append(
            Link(
                index=parse_int(LINK_TOOL, index, f"{name} index"),
                name=name,
                parent=parent,
                flags=frozenset(flag for flag in flags.split(",") if flag),
                mtu=parse_int(LINK_TOOL, mtu, f"{name} mtu"),
                state=_word_after(rest, "state"),
                mac=mac.group(1).lower() if mac else None,
            )
        )
    return Links(tuple(links))


@dataclass(frozen=True)
class InterfaceAddresses:
    """Addresses as printed (``192.0.2.2/24``, validated); plain strings keep the facts JSON-ready."""

    name: str
    addresses: tuple[str, ...]

    @property
    def ipv4(self) -> tuple[IPv4Interface, ...]:
        return tuple(IPv4Interface(address) for address in self.addresses)


@dataclass(frozen=True)
class Addresses:
    """IPv4 addresses per interface, in the order ``ip`` printed them."""

    interfaces: tuple[InterfaceAddresses, ...]

    def of(self, name: str) -> tuple[IPv4Interface, ...]:
        return next((entry.ipv4 for entry in self.interfaces if entry.name == name), ())


@parser(ADDR_TOOL, "ip -o -4 addr show (or 'inet' lines of ip addr): IPv4 interfaces per device")
def parse_ip_addr(text: str) -> Addresses:
    found: dict[str, list[str]] = {}
    for line in clean_lines(ADDR_TOOL, text):
        inet = INET.search(line)
        if not inet:
            continue
        body = line.split("\\")[0].strip()  # ip -o puts the lifetimes after a backslash
        named = ADDR_PREFIX.match(body)
        name = named.group(1) if named else body.split()[-1]
        try:
            address = ip_interface(inet.group(1))
        except ValueError:
            fail(ADDR_TOOL, f"{name}: {inet.group(1)!r} is not an address/prefix")
        if not isinstance(address, IPv4Interface):
            fail(ADDR_TOOL, f"{name}: {inet.group(1)!r} is not IPv4")
        if "/" not in inet.group(1):
            fail(ADDR_TOOL, f"{name}: {inet.group(1)!r} has no prefix length")
        found.setdefault(name, []).append(str(address))
    if not found:
        fail(ADDR_TOOL, "no 'inet <address>/<prefix>' line")
    return Addresses(tuple(InterfaceAddresses(name, tuple(addrs)) for name, addrs in found.items()))


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
def parse_ip_rule(text: str) -> tuple[Rule, ...]:
    rules = []
    for line in clean_lines(RULE_TOOL, text):
        if not line.strip():
            continue
        priority, sep, rest = line.strip().partition(":")
        source, table = _word_after(rest, "from"), _word_after(rest, "lookup") or _word_after(rest, "table")
        if not sep or source is None or table is None:
            fail(RULE_TOOL, f"expected '<priority>: from <source> lookup <table>', found {line.strip()!r}")
        if source != "all":
            try:
                IPv4Network(source, strict=False)
            except ValueError:
                fail(RULE_TOOL, f"rule source {source!r} is not an IPv4 address or prefix")
        rules.append(
            Rule(
                priority=parse_int(RULE_TOOL, priority, "rule priority"),
                source=source,
                destination=_word_after(rest, "to"),
                table=table,
                text=line.strip(),
            )
        )
    return tuple(rules)


@dataclass(frozen=True)
class Route:
    """One route: destination (``default`` or a prefix), gateway, device, source and the whole line."""

    destination: str
    gateway: Optional[str]  # validated IPv4 address, as printed
    device: Optional[str]
    source: Optional[str]
    text: str

    @property
    def gateway_address(self) -> Optional[IPv4Address]:
        return IPv4Address(self.gateway) if self.gateway else None

    @property
    def is_default(self) -> bool:
        return self.destination in ("default", "0.0.0.0/0")


def _address(tool: str, value: Optional[str], what: str) -> Optional[str]:
    if value is None:
        return None
    try:
        return str(IPv4Address(value))
    except ValueError:
        fail(tool, f"{what} {value!r} is not an IPv4 address")


@parser(ROUTE_TOOL, "ip route list [table N]: destination, gateway, device, source of each route")
def parse_ip_route(text: str) -> tuple[Route, ...]:
    routes = []
    for line in clean_lines(ROUTE_TOOL, text):
        words = line.split()
        if not words:
            continue
        destination = words[1] if words[0] in ("unicast", "local", "broadcast", "blackhole") else words[0]
        if destination != "default":
            try:
                IPv4Network(destination, strict=False)
            except ValueError:
                fail(ROUTE_TOOL, f"expected 'default' or a prefix first, found {line.strip()!r}")
        routes.append(
            Route(
                destination=destination,
                gateway=_address(ROUTE_TOOL, _word_after(line, "via"), "gateway"),
                device=_word_after(line, "dev"),
                source=_address(ROUTE_TOOL, _word_after(line, "src"), "source"),
                text=line.strip(),
            )
        )
    return tuple(routes)
