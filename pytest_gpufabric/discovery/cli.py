"""``gpufabric discover``: read the nodes and write a commented site.yaml that validates."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from pytest_gpufabric.discovery.assemble import Declared, assemble_site
from pytest_gpufabric.discovery.runner import NodeOutcome, discover_nodes
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.discovery.summary import summary_text
from pytest_gpufabric.discovery.targets import (
    Target,
    local_targets,
    targets_from_hostfile,
    targets_from_nodeset,
    this_machine,
)
from pytest_gpufabric.discovery.transports import discovery_transport
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.expectations import known_profiles
from pytest_gpufabric.inventory import SshConfig, rules, validate_inventory_file
from pytest_gpufabric.inventory.model import DEPLOYMENTS, GPU_VENDORS, NIC_VENDORS
from pytest_gpufabric.options import default_thresholds_dir
from pytest_gpufabric.recording.atomic import write_atomically
from pytest_gpufabric.shapes import GPU_LINKS

EXIT_OK, EXIT_FAIL = 0, 1


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``discover`` and ``baseline``: how to reach the nodes and record/replay."""
    parser.add_argument("--ssh-user", default="root", help="SSH user (default root)")
    parser.add_argument("--ssh-port", type=int, default=22)
    parser.add_argument("--ssh-key", help="private key file")
    parser.add_argument("--known-hosts", help="known_hosts file (host keys are always checked)")
    parser.add_argument("--transport", choices=("ssh", "local"), default="ssh",
                        help="local: read this machine itself, with no SSH (its host name unless nodes are named)")  # fmt: skip
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--record", metavar="DIR", help="record every command's output into DIR")
    where.add_argument("--replay", metavar="DIR", help="answer every command from the recording DIR (offline)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per command (default 60)")


def add_discover_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("discover", help="read the nodes (read-only) and write a commented site.yaml")
    nodes = parser.add_mutually_exclusive_group()
    nodes.add_argument("--nodes", help="nodeset, e.g. node[01-64,70] (each reached at its name); with --transport "
                                       "local, the names this machine is written under (default: its host name)")
    nodes.add_argument("--hostfile", type=Path, help="file with one 'NAME [ADDRESS]' per line")
    add_target_arguments(parser)
    parser.add_argument("-o", "--output", type=Path, required=True, help="site.yaml to write")
    parser.add_argument("--site", default="site", help="site name written into the file (default: site)")
    parser.add_argument("--profile", help="thresholds profile to write instead of the best match")
    parser.add_argument("--platform", action="append", default=[], metavar="KEY=VALUE",
                        help="declare a platform value the nodes cannot show (gpu_vendor, gpu_model, nic_vendor, deployment, gpu_link)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=16, help="nodes read at once (default 16)")
    parser.add_argument("--no-lldp", dest="lldp", action="store_false",
                        help="do not ask LLDP (lldpctl) for switch and port; they are left to fill in")  # fmt: skip
    parser.add_argument("--thresholds-dir", type=Path, default=default_thresholds_dir(Path.cwd()))
    parser.set_defaults(func=run_discover)


def node_targets(args: argparse.Namespace) -> list[Target]:
    """The nodes to read; with ``--transport local`` every one is this machine (by default, under its host name)."""
    if args.transport == "local":
        if args.hostfile or args.nodes:
            return local_targets(node_targets_given(args))
        return [this_machine()]
    if not args.hostfile and not args.nodes:
        raise UsageError("give the nodes to read: --nodes NODESET or --hostfile FILE (or --transport local for this machine)")
    return node_targets_given(args)


def node_targets_given(args: argparse.Namespace) -> list[Target]:
    return targets_from_hostfile(args.hostfile) if args.hostfile else targets_from_nodeset(args.nodes)


def ssh_config(args: argparse.Namespace) -> SshConfig:
    try:
        return SshConfig(
            user=rules.ssh_user(args.ssh_user), port=rules.port_number(args.ssh_port),
            key=None if args.ssh_key is None else rules.file_path(args.ssh_key),
            known_hosts=None if args.known_hosts is None else rules.file_path(args.known_hosts),
        )  # fmt: skip
    except rules.Invalid as exc:
        raise UsageError(str(exc)) from None


PLATFORM_RULES = {
    "gpu_vendor": rules.one_of(GPU_VENDORS),
    "gpu_model": rules.gpu_model,
    "nic_vendor": rules.one_of(NIC_VENDORS),
    "deployment": rules.one_of(DEPLOYMENTS),
    "gpu_link": rules.one_of(GPU_LINKS),
}


def declared_platform(pairs: Sequence[str]) -> dict[str, str]:
    declared: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in PLATFORM_RULES:
            raise UsageError(f"--platform {pair!r}: expected KEY=VALUE with KEY one of {', '.join(PLATFORM_RULES)}")
        try:
            declared[key] = PLATFORM_RULES[key](value)
        except rules.Invalid as exc:
            raise UsageError(f"--platform {pair!r}: {exc}") from None
    return declared


def print_progress(outcome: NodeOutcome) -> None:
    if outcome.facts is None:
        print(f"{outcome.target.name}: FAILED ({outcome.error})", file=sys.stderr, flush=True)
        return
    facts = outcome.facts
    print(f"{facts.name}: {len(facts.gpus)} GPUs, {len(facts.nics)} NICs ({outcome.seconds:.1f} s)", file=sys.stderr, flush=True)


def run_discover(args: argparse.Namespace) -> int:
    targets = node_targets(args)
    ssh = ssh_config(args)
    try:
        site_name = rules.site_name(args.site)
    except rules.Invalid as exc:
        raise UsageError(f"--site: {exc}") from None
    declared = Declared(site_name, args.transport, ssh, args.profile, declared_platform(args.platform))
    profiles = known_profiles(Path(args.thresholds_dir))
    if args.profile and args.profile not in profiles:
        raise UsageError(f"unknown profile {args.profile!r} (known profiles: {', '.join(profiles)})")
    transport = discovery_transport(args, targets, ssh)
    started = time.monotonic()
    try:
        outcomes = discover_nodes(
            targets, transport, workers=args.workers, timeout_s=args.timeout, lldp=args.lldp, progress=print_progress
        )
    finally:
        transport.close()
    found = [outcome.facts for outcome in outcomes if outcome.facts is not None]
    site = assemble_site(found, declared, profiles) if found else None
    print(summary_text(outcomes, site))
    if site is None:
        print("gpufabric discover: no node could be read; nothing written", file=sys.stderr)
        return EXIT_FAIL
    header = (
        f"site.yaml written by `gpufabric discover` from {len(found)} of {len(targets)} nodes "
        f"in {time.monotonic() - started:.0f} s (read-only).\n"
        "Every value was read on the nodes; a comment says where discovery guessed or could not read.\n"
        f"Check it with: gpufabric inventory validate {args.output.name}"
    )
    write_atomically(args.output, render_site(site, header))
    problems = validate_inventory_file(args.output, profiles)
    for line in problems:
        print(line, file=sys.stderr)
    print(f"wrote {args.output} ({len(site.nodes)} nodes)" + ("; it does NOT validate yet (see above)" if problems else ""))
    return EXIT_FAIL if problems or len(found) < len(targets) else EXIT_OK

