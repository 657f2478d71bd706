"""Write a synthesized site.yaml of N nodes x R rails (MI300X + Thor2, profile mi300x-thor2) for scale runs.

The shape is ``pytest_gpufabric.lab.synthetic_site``'s. Nothing here reaches a machine: the file feeds
``--collect-only`` runs and the scale benchmark.

    python -m tools.synth_inventory 256 /tmp/site-256.yaml [--rails 8]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from pytest_gpufabric.lab.synthetic_site import MAX_NODES, PROFILE, synthesize

__all__ = ["synthesize"]


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
