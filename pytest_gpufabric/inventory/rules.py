"""Rules for single inventory values; each returns the value to keep or raises Invalid(why, what is allowed).

Every value that may reach a shell command (names, interfaces, addresses, PCIe addresses, users, paths)
is limited to characters that need no quoting; commands quote them anyway.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, IPv6Address, ip_address

THIS_NETWORK = IPv4Network("0.0.0.0/8")  # RFC 1122 3.2.1.3: "this host on this network", never a destination
LIMITED_BROADCAST = IPv4Address("255.255.255.255")
RESERVED_ROUTE_TABLES = frozenset({253, 254, 255})  # default, main, local
ROUTE_TABLE_MAX = 4294967295

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
_SITE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SSH_USER = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
_PATH = re.compile(r"[A-Za-z0-9_.~/+@%=,-]{1,4096}")
_PCI = re.compile(r"[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[01][0-9A-Fa-f]\.[0-7]")
_RDMA_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_NETDEV = re.compile(r"[A-Za-z0-9_.-]{1,15}")
_SWITCH_PORT = re.compile(r"[A-Za-z0-9/._:-]+")
_GPU_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
_HOST_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_IPV6_SCOPE = re.compile(r"[A-Za-z0-9_.-]+")
_CHECK_ID = re.compile(r"[A-Z]+-[0-9]{3}")
_THRESHOLD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Invalid(ValueError):
    """A value breaks a rule; the message says what is wrong and what is allowed."""


def _match(pattern: re.Pattern[str], text: str, what: str, allowed: str) -> str:
    if pattern.fullmatch(text) is None:
        raise Invalid(f"{text!r} is not a valid {what} (expected {allowed})")
    return text


def _no_dot_names(text: str, what: str) -> None:
    if text in (".", ".."):
        raise Invalid(f"{text!r} is not a valid {what} ('.' and '..' are not allowed)")


def _no_leading_dash(text: str, what: str) -> None:
    if text.startswith("-"):
        raise Invalid(f"{text!r} is not a valid {what} (it must not start with '-')")


def machine_name(text: str) -> str:
    """Node and switch names (they appear in test ids and on command lines)."""
    return _match(_NAME, text, "name", "a letter or digit, then letters, digits, '_', '.', '-'; at most 63 characters")


def site_name(text: str) -> str:
    return _match(_SITE, text, "site name", "a letter or digit, then letters, digits, '.', '_', '-'")


def ssh_user(text: str) -> str:
    return _match(_SSH_USER, text, "user name", "a lower-case letter or '_', then [a-z0-9_-]; at most 32 characters")


def file_path(text: str) -> str:
    """A local file path (SSH key, known_hosts); `~` stays for the consumer to expand."""
    _no_leading_dash(text, "path")
    return _match(_PATH, text, "path", "letters, digits and _ . ~ / + @ % = , - only; no spaces or quotes")


def pci_address(text: str) -> str:
    """A PCIe address domain:bus:device.function, kept in lower case."""
    _match(_PCI, text, "PCIe address", "dddd:bb:dd.f in hex, e.g. 0000:05:00.0")
    return text.lower()


def rdma_device(text: str) -> str:
    _no_dot_names(text, "RDMA device name")
    _no_leading_dash(text, "RDMA device name")
    return _match(_RDMA_NAME, text, "RDMA device name", "1-64 letters, digits, '_', '.', '-'")


def netdev(text: str) -> str:
    """A Linux interface name, limited to characters that are safe on a command line."""
    _no_dot_names(text, "interface name")
    _no_leading_dash(text, "interface name")
    return _match(_NETDEV, text, "interface name", "1-15 letters, digits, '_', '.', '-'")


def switch_port(text: str) -> str:
    _no_leading_dash(text, "switch port")
    return _match(_SWITCH_PORT, text, "switch port", "letters, digits and / . _ : - only, e.g. Ethernet1/1")


def gpu_model(text: str) -> str:
    return _match(
        _GPU_MODEL, text, "GPU model", "a letter or digit, then letters, digits, '_', '.', '+', '-', e.g. MI300X"
    )


def check_id(text: str) -> str:
    return _match(_CHECK_ID, text, "check id", "a catalog id such as PERF-002")


def threshold_name(text: str) -> str:
    return _match(_THRESHOLD_NAME, text, "threshold name", "an identifier such as nic_nic_bw_gbps")


def host(text: str) -> str:
    """An IPv4 address, an IPv6 address or a DNS host name, kept as written."""
    try:
        address = ip_address(text)
    except ValueError:
        pass
    else:
        if isinstance(address, IPv6Address) and address.scope_id is not None:
            _match(_IPV6_SCOPE, address.scope_id, "IPv6 scope", "an interface name")
        return text
    labels = text[:-1].split(".") if text.endswith(".") else text.split(".")
    if labels and labels[-1].isdigit():
        raise Invalid(f"{text!r} is not a valid IPv4 address (expected e.g. 10.0.0.11)")
    if len(text) > 253 or not all(_HOST_LABEL.fullmatch(label) for label in labels):
        raise Invalid(
            f"{text!r} is not an IPv4 address, an IPv6 address or a host name "
            "(expected e.g. 10.0.0.11, fd00::11 or node01.example.com)"
        )
    return text


def machine_address(text: str) -> str:
    """The address of one node or switch: a host (see ``host``) that is not an address of no machine or of
    many, i.e. not unspecified (0.0.0.0, ::, 0.0.0.0/8: SSH to it reaches the controller itself), not the
    broadcast address 255.255.255.255 and not multicast (224.0.0.0/4, ff00::/8); IPv4-mapped IPv6 alike."""
    host(text)
    try:
        address = ip_address(text)
    except ValueError:
        return text  # a host name
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_unspecified:
        kind = "the unspecified address (SSH to it reaches this machine)"
    elif isinstance(address, IPv4Address) and address in THIS_NETWORK:
        kind = f"in {THIS_NETWORK}, which means this machine"
    elif address == LIMITED_BROADCAST:
        kind = "the broadcast address"
    elif address.is_multicast:
        kind = "a multicast address"
    else:
        return text
    raise Invalid(f"{text!r} is {kind}, not a machine's address (expected the address of one machine, e.g. 10.0.0.11)")


def host_key(text: str) -> str:
    """The form of a host under which two spellings of one machine compare equal."""
    try:
        return str(ip_address(text))
    except ValueError:
        return text.rstrip(".").lower()


def ipv4_interface(text: str) -> IPv4Interface:
    """`address/prefix` of a NIC; the address must be usable by a host of that subnet."""
    expected = "(expected e.g. 192.168.1.1/24)"
    if "/" not in text:
        raise Invalid(f"{text!r} has no prefix length {expected}")
    try:
        interface = IPv4Interface(text)
    except ValueError:
        raise Invalid(f"{text!r} is not an IPv4 address with prefix {expected}") from None
    network = interface.network
    if network.prefixlen < 31 and interface.ip in (network.network_address, network.broadcast_address):
        kind = "network" if interface.ip == network.network_address else "broadcast"
        raise Invalid(f"{text!r} is the {kind} address of {network}, not a host address {expected}")
    return interface


def ipv4_address(text: str) -> IPv4Address:
    try:
        return IPv4Address(text)
    except ValueError:
        raise Invalid(f"{text!r} is not an IPv4 address (expected e.g. 192.168.1.254)") from None


def gateway(address: IPv4Address, nic: IPv4Interface) -> IPv4Address:
    """A NIC's gateway: another host address of the NIC's subnet."""
    network = nic.network
    if address not in network:
        raise Invalid(f"{address} is outside the NIC's subnet {network} (expected an address in {network})")
    if address == nic.ip:
        raise Invalid(f"{address} is the NIC's own address (expected another address in {network})")
    if network.prefixlen < 31 and address in (network.network_address, network.broadcast_address):
        raise Invalid(f"{address} is not a host address of {network} (expected an address in {network})")
    return address


def route_table(number: int) -> int:
    if not 1 <= number <= ROUTE_TABLE_MAX or number in RESERVED_ROUTE_TABLES:
        raise Invalid(
            f"route table {number} is not allowed (expected 1..{ROUTE_TABLE_MAX} except 253, 254, 255, "
            "which are the kernel's default, main and local tables)"
        )
    return number


def scrub_pattern(text: str) -> str:
    """A secret-scrubbing regex: it must compile and must not match the empty string."""
    try:
        compiled = re.compile(text)
    except re.error as error:
        raise Invalid(f"{text!r} is not a valid regular expression ({error}) (expected Python re syntax)") from None
    if compiled.fullmatch("") is not None:
        raise Invalid(f"{text!r} matches the empty string (expected a pattern that matches the secret only)")
    return text


def positive_number(value: float) -> float:
    if not math.isfinite(value) or value <= 0:
        raise Invalid(f"{value!r} is not allowed (expected a positive number of seconds)")
    return float(value)


def port_number(value: int) -> int:
    if not 1 <= value <= 65535:
        raise Invalid(f"{value} is not a TCP port (expected 1..65535)")
    return value


def at_least(minimum: int, what: str) -> Callable[[int], int]:
    """A rule for integers: at least `minimum`."""

    def rule(value: int) -> int:
        if value < minimum:
            raise Invalid(f"{value} is not allowed (expected {what} >= {minimum})")
        return value

    return rule


def one_of(allowed: tuple[str, ...]) -> Callable[[str], str]:
    """A rule for enumerations."""

    def rule(value: str) -> str:
        if value not in allowed:
            raise Invalid(f"{value!r} is not allowed (expected one of: {', '.join(allowed)})")
        return value

    return rule
