"""``python -m pytest_gpufabric.lab up|down|sweep``: a lab for manual use."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_gpufabric.lab.errors import LabError, LabUnavailable
from pytest_gpufabric.lab.lab import Lab
from pytest_gpufabric.lab.stop import stop_signals_held
from pytest_gpufabric.lab.sweep import remove_all, remove_lab, sweep_stale

READY_LINE = "lab up"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_gpufabric.lab", description=__doc__
    )
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser(
        "up", help="build a lab, print its site.yaml, keep it until Ctrl-C / SIGTERM / SIGHUP"
    )
    up.add_argument("--nodes", type=int, default=4)
    up.add_argument("--rails", type=int, default=2)
    up.add_argument(
        "--inventory",
        type=Path,
        help="where to write site.yaml (default: in the lab directory)",
    )
    up.add_argument("--profile", default="lab-linux")
    down = commands.add_parser(
        "down", help="remove the given labs, or with --all every lab of this project"
    )
    down.add_argument("lab_ids", nargs="*", metavar="LAB_ID")
    down.add_argument(
        "--all",
        action="store_true",
        help="remove every lab, also those of living processes",
    )
    commands.add_parser(
        "sweep", help="remove only stale labs (whose owner process is gone)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "up":
            return _up(args.nodes, args.rails, args.inventory, args.profile)
        if args.command == "down":
            if bool(args.lab_ids) == args.all:
                print(
                    "down: name the labs (LAB_ID ...) or pass --all, not both",
                    file=sys.stderr,
                )
                return 2
            removed = remove_all() if args.all else list(args.lab_ids)
            for lab_id in [] if args.all else removed:
                remove_lab(lab_id)
            print(f"removed labs: {' '.join(removed) or 'none'}")
            return 0
        removed = sweep_stale()
        print(f"removed stale labs: {' '.join(removed) or 'none'}")
        return 0
    except LabUnavailable as exc:
        print(f"cannot host a lab here: {exc}", file=sys.stderr)
        return 2
    except LabError as exc:
        print(f"lab error: {exc}", file=sys.stderr)
        return 1


def _up(nodes: int, rails: int, inventory: Path | None, profile: str) -> int:
    with Lab(nodes=nodes, rails=rails) as lab:
        site = lab.write_inventory(inventory or lab.dir / "site.yaml", profile=profile)
        with stop_signals_held() as wait_for_stop:  # held before the ready line: no signal can be lost
            print(
                f"{READY_LINE}: id {lab.lab_id}, {nodes} nodes, {rails} rails, built in {lab.build_s:.2f} s"
            )
            print(f"site.yaml:   {site}")
            print(f"ssh key:     {lab.ssh_key}")
            print(f"known_hosts: {lab.known_hosts}")
            for node in lab.nodes:
                nics = ", ".join(f"{n.netdev}={n.ipv4}" for n in node.nics)
                print(f"  {node.name}: ssh root@{node.mgmt_ip} ({nics})")
            print("example:     " + " ".join(lab.ssh_argv(0, "hostname")))
            print("Ctrl-C (or SIGTERM, SIGHUP) removes the lab.", flush=True)
            received = wait_for_stop()
        print(f"{received.name}: removing lab {lab.lab_id}", flush=True)
    print(f"lab {lab.lab_id} removed in {lab.teardown_s:.2f} s", flush=True)
    return 0
