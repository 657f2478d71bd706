"""Demo outputs of NET-001 (ping mesh), NET-002 (jumbo ping) and HOST-008 (passwordless ssh).

Ping outputs follow the iputils sample fixtures/outputs/ping/netns-routed-ok.txt (captured in network
namespaces); the jumbo failure is fixtures/outputs/ping/netns-peer-mtu1500-loss.txt.

Injected fault (consistent with basics.py): node04, slot 5 has MTU 1500, so 8972-byte pings with DF set
to node04/bnxt_re5 get no reply (NET-002 fails for every partner: localization names the NIC).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from pytest_gpufabric.checks.connectivity import (
    PING_COUNT,
    jumbo_ping_command,
    ping_command,
    ssh_probe_command,
)
from pytest_gpufabric.expectations import known_profiles
from pytest_gpufabric.inventory import load_inventory
from tools.demo_cluster.areas.basics import MTU_1500
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import NODES, DemoNode

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Inventory

REPO = Path(__file__).resolve().parents[3]


def demo_inventory() -> Inventory:
    """The demo's site.yaml loaded by the project's own loader (so commands are built from the same model)."""
    from tools.demo_cluster.__main__ import inventory

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "site.yaml"
        path.write_text(yaml.safe_dump(inventory(NODES), sort_keys=False), encoding="utf-8")
        return load_inventory(path, known_profiles(REPO / "thresholds"))


def ping_ok(source: str, destination: str, payload: int) -> str:
    """iputils output of PING_COUNT replies (format of netns-routed-ok.txt)."""
    replies = "".join(f"{payload + 8} bytes from {destination}: icmp_seq={n} ttl=64 time=0.0{40 + n} ms\n"
                      for n in range(1, PING_COUNT + 1))
    return (f"PING {destination} ({destination}) from {source} : {payload}({payload + 28}) bytes of data.\n{replies}\n"
            f"--- {destination} ping statistics ---\n"
            f"{PING_COUNT} packets transmitted, {PING_COUNT} received, 0% packet loss, time 4005ms\n"
            "rtt min/avg/max/mdev = 0.041/0.043/0.045/0.001 ms\n")


def ping_lost(source: str, destination: str, payload: int) -> str:
    """No reply at all (format of netns-peer-mtu1500-loss.txt)."""
    return (f"PING {destination} ({destination}) from {source} : {payload}({payload + 28}) bytes of data.\n\n"
            f"--- {destination} ping statistics ---\n"
            f"{PING_COUNT} packets transmitted, 0 received, 100% packet loss, time 4098ms\n\n")


def build(node: DemoNode) -> Outputs:
    inventory = demo_inventory()
    names = [n.name for n in inventory.nodes]
    me = inventory.node(node.name)
    outputs: Outputs = {}
    for other in inventory.nodes[names.index(node.name) + 1:]:
        outputs[ssh_probe_command(other.address)] = ("", 0)
        for nic in me.nics:
            for peer in other.nics:
                outputs[ping_command(str(nic.address), str(peer.address))] = (ping_ok(str(nic.address), str(peer.address), 56), 0)
            peer = next(p for p in other.nics if p.rail == nic.rail)
            source, destination = str(nic.address), str(peer.address)
            broken = (other.name, peer.rail) in MTU_1500 or (me.name, nic.rail) in MTU_1500
            text = ping_lost(source, destination, 8972) if broken else ping_ok(source, destination, 8972)
            outputs[jumbo_ping_command(source, destination)] = (text, 1 if broken else 0)
    return outputs
