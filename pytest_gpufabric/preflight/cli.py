"""``gpufabric preflight``: the prerequisites of the checks a run would select, probed on every node at once."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.options import default_thresholds_dir
from pytest_gpufabric.preflight.requirements import Prerequisites, Requirement, load_prerequisites
from pytest_gpufabric.preflight.runner import NodeProbe, probe_live
from pytest_gpufabric.preflight.selection import Selection, checks_by_node
from pytest_gpufabric.preflight.summary import findings, summary_lines
from pytest_gpufabric.preflight.table import prerequisites_table
from pytest_gpufabric.startup import RunSetup, StartupError, prepare_run
from pytest_gpufabric.suite_index import default_suite_dir

EXIT_OK, EXIT_MISSING = 0, 1
DEFAULT_WORKERS = 256
DEFAULT_TIMEOUT_S = 30.0
NODES_PER_PROCESS = 64  # below that, starting another process costs more than its share of handshakes


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
    by_kind: dict[tuple[tuple[str, ...], str], list[Requirement]] = {}
    needs = {}
    for name, node_checks in checks.items():
        kind = (tuple(node_checks), facts[name]["gpu_vendor"])
        if kind not in by_kind:
            by_kind[kind] = list(dict.fromkeys(r for check in node_checks for r in prerequisites.needs(check, facts[name])))
        needs[name] = by_kind[kind]
    return PreflightPlan(checks, needs, facts)


def run_preflight(setup: RunSetup, probe: Callable[[dict[str, list[Requirement]]], list[NodeProbe]], *,
                  keyword: str | None = None, markexpr: str | None = None, launcher: str = "mpirun",
                  workers: int = DEFAULT_WORKERS, suite_dir: Path | None = None) -> tuple[list[str], bool]:
    """The summary lines and whether anything required is missing (the same for the CLI and ``--preflight``);
    ``probe`` probes the nodes it is given (node -> requirements)."""
    prerequisites = load_prerequisites()
    planned = plan(setup, Selection(suite_dir or default_suite_dir(), keyword, markexpr), launcher, prerequisites)
    asked = {node: requirements for node, requirements in planned.needs.items() if requirements}
    started = time.monotonic()
    probes = probe(asked)
    found = findings(probes, planned.checks, prerequisites, planned.facts)
    return summary_lines(found, len(asked), time.monotonic() - started, workers), bool(found)


def live_probe(setup: RunSetup, *, verify_host_keys: bool, workers: int = DEFAULT_WORKERS,
               timeout_s: float = DEFAULT_TIMEOUT_S, processes: int | None = None) -> Callable[[dict[str, list[Requirement]]], list[NodeProbe]]:
    """Probing the inventory's live nodes (SSH, or this machine for a local inventory), on ``processes`` cores
    (default: every core, one process per 64 nodes at most)."""
    def probe(asked: dict[str, list[Requirement]]) -> list[NodeProbe]:
        shares = processes or min(os.cpu_count() or 1, -(-len(asked) // NODES_PER_PROCESS))
        return probe_live(setup.inventory, verify_host_keys, asked, workers=workers, timeout_s=timeout_s, processes=shares)
    return probe


def add_preflight_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("preflight", help="probe every node for the programs, privileges and kernel interfaces "
                                              "the selected checks need; exit 1 when anything is missing")
    parser.add_argument("--cluster", metavar="SITE_YAML", help="the inventory (as pytest's --cluster)")
    parser.add_argument("-k", dest="keyword", metavar="EXPRESSION", help="select checks as pytest -k does")
    parser.add_argument("-m", dest="markexpr", metavar="MARKEXPR", help="select checks as pytest -m does")
    parser.add_argument("--mpi-launcher", choices=("mpirun", "srun"), default="mpirun", help="as pytest's option (default mpirun)")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help=f"nodes probed at once (default {DEFAULT_WORKERS})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help=f"seconds per node (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--processes", type=int, help=f"processes sharing the nodes (default: one per core, at most one per {NODES_PER_PROCESS} nodes)")
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
    if args.workers < 1 or (args.processes is not None and args.processes < 1):
        print("gpufabric preflight: --workers and --processes must be at least 1", file=sys.stderr)
        return 2
    try:
        setup = prepare_run(Path(args.cluster), Path(args.thresholds_dir))
    except StartupError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        return EXIT_MISSING
    probe = live_probe(setup, verify_host_keys=not args.insecure_host_keys, workers=args.workers,
                       timeout_s=args.timeout, processes=args.processes)
    lines, missing = run_preflight(setup, probe, keyword=args.keyword, markexpr=args.markexpr,
                                   launcher=args.mpi_launcher, workers=args.workers)
    print("\n".join(lines))
    return EXIT_MISSING if missing else EXIT_OK


def checks_in_order() -> Sequence[str]:
    """The implemented checks, in the catalog's order."""
    from pytest_gpufabric.catalog import load_catalog
    from pytest_gpufabric.suite_index import implemented_checks

    implemented = {check.check_id for check in implemented_checks(default_suite_dir())}
    return [spec.id for spec in load_catalog() if spec.id in implemented]

