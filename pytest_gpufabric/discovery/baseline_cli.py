"""``gpufabric baseline``: a known-good node's versions and settings, written as site overrides."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_gpufabric.discovery.assemble import node_platform
from pytest_gpufabric.discovery.baseline import read_baseline, render_overrides
from pytest_gpufabric.discovery.cli import EXIT_FAIL, EXIT_OK, add_target_arguments, ssh_config
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.discovery.probe import probe_node
from pytest_gpufabric.discovery.profiles import best_profile
from pytest_gpufabric.discovery.shaped_values import propose_shaped_values
from pytest_gpufabric.discovery.summary import baseline_table
from pytest_gpufabric.discovery.targets import Target, checked_target, expand_nodeset, local_targets, this_machine
from pytest_gpufabric.discovery.transports import discovery_transport
from pytest_gpufabric.errors import TransportError, UsageError
from pytest_gpufabric.expectations import apply_site_overrides, known_profiles, load_profile
from pytest_gpufabric.options import default_thresholds_dir
from pytest_gpufabric.recording.atomic import write_atomically


def add_baseline_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("baseline", help="write a known-good node's versions and settings as site overrides")
    parser.add_argument("--from", dest="node", help="the known-good node (reached at its name); with --transport local, "
                                                    "the name this machine is written under (default: its host name)")
    parser.add_argument("--address", help="address to reach it at, when not its name")
    add_target_arguments(parser)
    parser.add_argument("-o", "--output", type=Path, required=True, help="site overrides file to write")
    parser.add_argument("--profile", help="profile to compare with (default: the best match of the node)")
    parser.add_argument("--thresholds-dir", type=Path, default=default_thresholds_dir(Path.cwd()))
    parser.set_defaults(func=run_baseline)


def _baseline_target(args: argparse.Namespace) -> Target:
    """The known-good node: ``--from NAME`` (at ``--address`` or its name), or this machine with ``--transport local``."""
    if args.node is None:
        if args.transport != "local":
            raise UsageError("give the known-good node: --from NODE (or --transport local for this machine)")
        return this_machine()
    names = expand_nodeset(args.node)
    if len(names) != 1:
        raise UsageError(f"--from names one node, not {len(names)} ({args.node})")
    target = checked_target(names[0], args.address or names[0], "--from")
    return local_targets([target])[0] if args.transport == "local" else target


def run_baseline(args: argparse.Namespace) -> int:
    target = _baseline_target(args)
    transport = discovery_transport(args, [target], ssh_config(args))
    try:
        reader = NodeReader(transport, target.name, args.timeout)
        facts = probe_node(transport, target.name, target.address, args.timeout, lldp=False)
        readings = read_baseline(reader, facts)
        directory = Path(args.thresholds_dir)
        name = args.profile or best_profile(node_platform(facts, {}), known_profiles(directory)).profile
        if name is None:
            raise UsageError(f"no installed profile matches {target.name}'s platform; give --profile")
        profile = load_profile(directory, name)
        readings += propose_shaped_values(reader, facts, profile)
    except TransportError as exc:
        print(f"{target.name}: FAILED ({exc.reason})", file=sys.stderr)
        return EXIT_FAIL
    finally:
        transport.close()
    print(f"{target.name}: {len(readings)} values read", file=sys.stderr, flush=True)
    header = (
        f"Site overrides read on {target.name} by `gpufabric baseline` (read-only), against profile {name}.\n"
        "Merge the thresholds section into site.yaml: each value replaces the profile's for its check."
    )
    write_atomically(args.output, render_overrides(target.name, readings, profile, reader.notes, header))
    overrides: dict[str, dict[str, object]] = {}
    for reading in readings:
        if reading.name in profile.expectations.get(reading.check, {}):
            overrides.setdefault(reading.check, {})[reading.name] = reading.value
    apply_site_overrides({name: profile}, overrides, str(args.output))  # the values must fit the profile's comparisons
    print(baseline_table(readings, profile))
    print(f"wrote {args.output} ({sum(len(v) for v in overrides.values())} overrides)")
    return EXIT_OK
