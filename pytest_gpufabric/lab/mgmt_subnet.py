"""Choosing the management /24: the one subnet of a lab that lives in the root namespace's routing table.

Backend subnets exist only inside the lab's namespaces and may repeat between labs; the management subnet
must not overlap any route of the root namespace nor another lab's, so it is chosen under a file lock
and held until the root veth carries its address.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from ipaddress import IPv4Network, ip_network

from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.iproute import ip_json
from pytest_gpufabric.lab.registry import labs_root

CANDIDATE_SUPERNET = IPv4Network("10.251.0.0/16")


@contextmanager
def allocation_lock() -> Iterator[None]:
    """Serialize management-subnet choices between labs built at the same time on this machine."""
    root = labs_root()
    root.mkdir(mode=0o700, exist_ok=True)
    with open(root / "mgmt-subnet.lock", "w", encoding="ascii") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def routes_in_use() -> list[IPv4Network]:
    """Every IPv4 destination routed in the root namespace (all tables) and every assigned address."""
    used: list[IPv4Network] = []
    for route in ip_json("-4", "route", "show", "table", "all"):
        dst = str(route.get("dst", ""))
        if dst and dst != "default":
            used.append(_network(dst))
    for link in ip_json("-4", "addr", "show"):
        for info in link.get("addr_info", []):
            if info.get("local") and info.get("prefixlen") is not None:
                used.append(_network(f"{info['local']}/{info['prefixlen']}"))
    return used


def _network(text: str) -> IPv4Network:
    if "/" not in text:
        text = f"{text}/32"
    net = ip_network(text, strict=False)
    if not isinstance(net, IPv4Network):
        raise LabError(f"unexpected non-IPv4 route {text!r}")
    return net


def choose_free_subnet(used: list[IPv4Network]) -> IPv4Network:
    """The first /24 of 10.251.0.0/16 (from 10.251.1.0) overlapping nothing in ``used``."""
    for candidate in list(CANDIDATE_SUPERNET.subnets(new_prefix=24))[1:]:
        if not any(candidate.overlaps(net) for net in used):
            return candidate
    raise LabError(
        f"no free /24 for the lab's management network left in {CANDIDATE_SUPERNET}"
    )
