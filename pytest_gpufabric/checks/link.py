"""NIC link and RDMA device state (LNK-*): the IPv4 address a RoCE v2 GID carries."""

from __future__ import annotations

from ipaddress import IPv6Address


def gid_ipv4(gid: str) -> str | None:
    """``::ffff:192.168.1.1`` of an IPv4-mapped GID as printed in sysfs (``0000:...:ffff:c0a8:0101``);
    None for an unset or non-IPv4 GID."""
    try:
        mapped = IPv6Address(gid.strip()).ipv4_mapped
    except ValueError:
        return None
    return str(mapped) if mapped is not None else None
