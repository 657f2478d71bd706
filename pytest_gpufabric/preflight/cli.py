"""``gpufabric preflight``: the prerequisites of the checks a run would select, probed on every node at once."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.options import default_thresholds_dir
from pytest_gpufabric.preflight.requirements import Prerequisites, Requirement, load_prerequisites
from pytest_gpufabric.preflight.runner import probe_nodes
from pytest_gpufabric.preflight.selection import Selection, checks_by_node
from pytest_gpufabric.preflight.summary import findings, summary_lines
from pytest_gpufabric.preflight.table import prerequisites_table
from pytest_gpufabric.startup import RunSetup, StartupError, prepare_run
from pytest_gpufabric.suite_index import default_suite_dir
from pytest_gpufabric.transport.base import Transport

EXIT_OK, EXIT_MISSING = 0, 1
DEFAULT_WORKERS = 256
DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class PreflightPlan:
    """What each node is asked: the checks that apply to it, and their requirements there."""

    checks: dict[str, list[str]]
    needs: dict[str, list[Requirement]]
    facts: dict[str, dict[str, str]]


def plan(setup: RunSetup, selection: Selection, launcher: str, prerequisites: Prerequisites) -> PreflightPlan:
    inventory = setup.inventory
    checks = checks_by_node(selection, inventory, setup.catalog,
                            lambda node: setup.profiles[node.profile or inventory.profile])
    facts = {node.name: {"gpu_vendor": node.platform.gpu_vendor, "launcher": launcher} for node in inventory.nodes}
    needs = {name: list(dict.fromkeys(r for check in node_checks for r in prerequisites.needs(check, facts[name])))
             for name, node_checks in checks.items()}
    return PreflightPlan(checks, needs, facts)


def run_preflight(setup: RunSetup, transport: Transport, *, keyword: str | None = None, markexpr: str | None = None,
                  launcher: str = "mpirun", workers: int = DEFAULT_WORKERS, timeout_s: float = DEFAULT_TIMEOUT_S,
                  suite_dir: Path | None = None) -> tuple[list[str], bool]:
    """The summary lines and whether anything required is missing (the same for the CLI and ``--preflight``)."""
    prerequisites = load_prerequisites()
    planned = plan(setup, Selection(suite_dir or default_suite_dir(), keyword, markexpr), launcher, prerequisites)
    asked = {node: requirements for node, requirements in planned.needs.items() if requirements}
    started = time.monotonic()
    probes = probe_nodes(transport, asked, workers=workers, timeout_s=timeout_s)
    found = findings(probes, planned.checks, prerequisites, planned.facts)
    return summary_lines(found, len(asked), time.monotonic() - started, workers), bool(found)


def add_preflight_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("preflight", help="probe every node for the programs, privileges and kernel interfaces "
                                              "the selected checks need; exit 1 when anything is missing")
    parser.add_argument("--cluster", metavar="SITE_YAML", help="the inventory (as pytest's --cluster)")
    parser.add_argument("-k", dest="keyword", metavar="EXPRESSION", help="select checks as pytest -k does")
    parser.add_argument("-m", dest="markexpr", metavar="MARKEXPR", help="select checks as pytest -m does")
    parser.add_argument("--mpi-launcher", choices=("mpirun", "srun"), default="mpirun", help="as pytest's option (default mpirun)")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help=f"nodes probed at once (default {DEFAULT_WORKERS})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help=f"seconds per node (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--insecure-host-keys", action="store_true", help="accept unknown SSH host keys (NOT recommended)")
    parser.add_argument("--thresholds-dir", default=str(default_thresholds_dir(Path.cwd())))
    parser.add_argument("--table", action="store_true", help="print the prerequisites of every check as a Markdown table")
    parser.set_defaults(func=_cmd_preflight)


def _cmd_preflight(args: argparse.Namespace) -> int:
    if args.table:
        print(prerequisites_table(load_prerequisites(), checks_in_order()))
        return EXIT_OK
    if not args.cluster:
        print("gpufabric preflight: give --cluster SITE_YAML (or --table)", file=sys.stderr)
        return 2
    if args.workers < 1:
        print(f"gpufabric preflight: --workers must be at least 1, got {args.workers}", file=sys.stderr)
        return 2
    try:
        setup = prepare_run(Path(args.cluster), Path(args.thresholds_dir))
    except StartupError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        return EXIT_MISSING
    from pytest_gpufabric.transport.factory import live_transport  # paramiko and fabric only when nodes are probed

    transport = live_transport(setup.inventory, not args.insecure_host_keys)
    try:
        lines, missing = run_preflight(setup, transport, keyword=args.keyword, markexpr=args.markexpr,
                                       launcher=args.mpi_launcher, workers=args.workers, timeout_s=args.timeout)
    finally:
        transport.close()
    print("\n".join(lines))
    return EXIT_MISSING if missing else EXIT_OK


def checks_in_order() -> Sequence[str]:
    """The implemented checks, in the catalog's order."""
    from pytest_gpufabric.catalog import load_catalog
    from pytest_gpufabric.suite_index import implemented_checks

    implemented = {check.check_id for check in implemented_checks(default_suite_dir())}
    return [spec.id for spec in load_catalog() if spec.id in implemented]

