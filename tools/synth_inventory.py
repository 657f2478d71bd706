"""Write a synthesized site.yaml of N nodes x R rails (MI300X + Thor2, profile mi300x-thor2) for scale runs.

Each node has 8 GPUs and one NIC per rail, each NIC next to its GPU (as S0's rail-optimized topology);
rail r is the subnet 10.(100+r).0.0/16 (room for 65,000 nodes), its NICs at 10.(100+r).<hi>.<lo>.
Nothing here reaches a machine: the file feeds ``--collect-only`` runs and the scale benchmark.

    python -m tools.synth_inventory 256 /tmp/site-256.yaml [--rails 8]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

GPUS_PER_NODE = 8
PROFILE = "mi300x-thor2"
MAX_NODES = 65_000


def _node(index: int, rails: int) -> dict[str, Any]:
    number = index + 1
    high, low = divmod(number, 250)
    return {
        "name": f"node{number:04d}",
        "address": f"10.10.{high}.{low + 1}",
        "gpus": [{"index": gpu, "pci": f"0000:{0x10 + gpu * 0x10:02x}:00.0"} for gpu in range(GPUS_PER_NODE)],
        "nics": [{"name": f"bnxt_re{rail}", "netdev": f"enp{0x11 + rail * 0x10}s0np0",
                  "ipv4": f"10.{100 + rail}.{high}.{low + 1}/16", "pci": f"0000:{0x11 + rail * 0x10:02x}:00.0",
                  "speed_gbps": 400, "rail": rail, "gpu": rail % GPUS_PER_NODE,
                  "gateway": f"10.{100 + rail}.255.254", "route_table": 101 + rail}
                 for rail in range(rails)],
    }


def synthesize(nodes: int, rails: int = 8) -> dict[str, Any]:
    """The inventory data of ``nodes`` nodes with ``rails`` rails each."""
    return {
        "version": 1,
        "site": f"synthetic-{nodes}x{rails}",
        "profile": PROFILE,
        "defaults": {
            "ssh": {"user": "root", "port": 22},
            "platform": {"gpu_vendor": "amd", "gpu_model": "MI300X", "nic_vendor": "broadcom", "deployment": "baremetal"},
        },
        "nodes": [_node(index, rails) for index in range(nodes)],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", type=int)
    parser.add_argument("output", type=Path)
    parser.add_argument("--rails", type=int, default=8)
    args = parser.parse_args(argv)
    if not 2 <= args.nodes <= MAX_NODES or not 1 <= args.rails <= 16:
        parser.error(f"expected 2..{MAX_NODES} nodes and 1..16 rails")
    args.output.write_text(yaml.safe_dump(synthesize(args.nodes, args.rails), sort_keys=False), encoding="utf-8")
    print(f"{args.output}: {args.nodes} nodes x {args.rails} rails ({PROFILE})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
