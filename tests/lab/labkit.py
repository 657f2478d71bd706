"""Helpers shared by the lab tests: pings from inside a node and the state of a node's interfaces."""

from __future__ import annotations

import json
import subprocess

from pytest_gpufabric.lab import Lab, NodeRef

PING_DEADLINE_S = 1
JUMBO_PAYLOAD = (
    8972  # 9000 MTU - 20 (IPv4 header) - 8 (ICMP header), as in S0's jumbo ping
)
SMALL_PAYLOAD = 56


def ping(
    lab: Lab, node: NodeRef, source: str, target: str, *, payload: int = SMALL_PAYLOAD
) -> subprocess.CompletedProcess[str]:
    """One ping from ``source`` (an address of ``node``) to ``target``, don't-fragment set, bounded."""
    return lab.exec_in(
        node,
        [
            "ping",
            "-n",
            "-c",
            "1",
            "-W",
            "1",
            "-w",
            str(PING_DEADLINE_S),
            "-M",
            "do",
            "-s",
            str(payload),
            "-I",
            source,
            target,
        ],
    )


def link_state(lab: Lab, node: NodeRef, netdev: str) -> dict[str, object]:
    """``ip -j link show dev NETDEV`` inside the node."""
    done = lab.exec_in(node, ["ip", "-j", "link", "show", "dev", netdev])
    assert done.returncode == 0, done.stderr
    (link,) = json.loads(done.stdout)
    return link


def route_get(lab: Lab, node: NodeRef, target: str, source: str) -> dict[str, object]:
    """``ip -j route get TARGET from SOURCE`` inside the node: the route the kernel would pick."""
    done = lab.exec_in(node, ["ip", "-j", "route", "get", target, "from", source])
    assert done.returncode == 0, done.stderr
    (route,) = json.loads(done.stdout)
    return route
