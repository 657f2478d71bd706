"""Synthesized inventories of N nodes x R rails (MI300X + Thor2, profile mi300x-thor2) for scale runs.

Each node has 8 GPUs and one NIC per rail, each NIC next to its GPU (as S0's rail-optimized topology);
rail r is the subnet 10.(100+r).0.0/16 (room for 65,000 nodes), its NICs at 10.(100+r).<hi>.<lo>. Used by
``tools/synth_inventory.py`` (collection at scale, nothing reached) and by the many-node loopback target
(``lab.loopback_target``: the same shape, each node's address one of the target's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

GPUS_PER_NODE = 8
PROFILE = "mi300x-thor2"
MAX_NODES = 65_000
PLATFORM = {"gpu_vendor": "amd", "gpu_model": "MI300X", "nic_vendor": "broadcom", "deployment": "baremetal"}


def node_name(index: int) -> str:
    return f"node{index + 1:04d}"


def synthetic_node(index: int, rails: int, address: str | None = None) -> dict[str, Any]:
    """Node ``index`` (0-based): 8 GPUs, ``rails`` NICs; reached at ``address`` (default 10.10.<hi>.<lo>)."""
    high, low = divmod(index + 1, 250)
    return {
        "name": node_name(index),
        "address": address or f"10.10.{high}.{low + 1}",
        "gpus": [{"index": gpu, "pci": f"0000:{0x10 + gpu * 0x10:02x}:00.0"} for gpu in range(GPUS_PER_NODE)],
        "nics": [{"name": f"bnxt_re{rail}", "netdev": f"enp{0x11 + rail * 0x10}s0np0",
                  "ipv4": f"10.{100 + rail}.{high}.{low + 1}/16", "pci": f"0000:{0x11 + rail * 0x10:02x}:00.0",
                  "speed_gbps": 400, "rail": rail, "gpu": rail % GPUS_PER_NODE,
                  "gateway": f"10.{100 + rail}.255.254", "route_table": 101 + rail}
                 for rail in range(rails)],
    }


def synthesize(nodes: int, rails: int = 8, *, profile: str = PROFILE, ssh: dict[str, Any] | None = None,
               addresses: Sequence[str] | None = None) -> dict[str, Any]:
    """The inventory data of ``nodes`` nodes with ``rails`` rails each."""
    return {
        "version": 1,
        "site": f"synthetic-{nodes}x{rails}",
        "profile": profile,
        "defaults": {"ssh": ssh or {"user": "root", "port": 22}, "platform": dict(PLATFORM)},
        "nodes": [synthetic_node(index, rails, addresses[index] if addresses else None) for index in range(nodes)],
    }
