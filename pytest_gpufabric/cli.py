"""The ``gpufabric`` command: run the acceptance suite, list checks, validate an inventory, check the nodes'
prerequisites, discover a site, show what a parser extracts, build the report, compare two runs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.discovery.baseline_cli import add_baseline_parser
from pytest_gpufabric.discovery.cli import add_discover_parser
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.options import DEFAULT_RESULTS_DIR, default_thresholds_dir
from pytest_gpufabric.parsers.registry import PARSERS, to_plain
from pytest_gpufabric.preflight.cli import add_preflight_parser
from pytest_gpufabric.recording.cli import add_recording_parser
from pytest_gpufabric.suite_index import default_suite_dir, implemented_checks

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _cmd_checks(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    tests: dict[str, list[str]] = {}
    for found in implemented_checks(Path(args.suite)):
        tests.setdefault(found.check_id, []).append(found.test)
    unknown = sorted(set(tests) - {c.id for c in catalog})
    if unknown:
        print(f"gpufabric: tests tagged with ids missing from the catalog: {', '.join(unknown)}", file=sys.stderr)
        return EXIT_FAIL
    rows = [
        {"id": c.id, "title": c.title, "scope": c.scope, "applies": list(c.applies), "source": c.source, "tests": tests[c.id],
         "guest": c.guest}
        for c in catalog
        if c.id in tests
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            applies = f"applies to: {', '.join(row['applies'])}; " if row["applies"] else ""
            print(f"{row['id']:<9} {row['scope']:<13} {row['title']}\n{'':<23} {applies}source: {row['source']}")
            if row["guest"]:
                print(f"{'':<23} in a guest: {row['guest']}")
        print(f"{len(rows)} of {sum(1 for _ in catalog)} catalog checks implemented")
    return EXIT_OK


def _cmd_inventory_validate(args: argparse.Namespace) -> int:
    """The run's own start-up checks (``prepare_run``): valid exactly when ``pytest --cluster=FILE`` starts."""
    from pytest_gpufabric.startup import StartupError, prepare_run

    try:
        prepare_run(Path(args.file), Path(args.thresholds_dir), tuple(args.scrub))
    except StartupError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        return EXIT_FAIL
    print(f"{args.file}: valid")
    return EXIT_OK


def _cmd_parse(args: argparse.Namespace) -> int:
    if args.list:
        for info in PARSERS.tools():
            print(f"{info.tool:<24} {info.summary}")
        return EXIT_OK
    if not args.tool or not args.file:
        print("gpufabric parse: give TOOL and FILE (or --list)", file=sys.stderr)
        return EXIT_USAGE
    try:
        info = PARSERS.get(args.tool)
    except KeyError:
        print(f"gpufabric parse: unknown tool {args.tool!r}; `gpufabric parse --list` names the parsers", file=sys.stderr)
        return EXIT_USAGE
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        print(f"gpufabric parse: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(to_plain(info.func(text)), indent=2, default=str))
    return EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    from pytest_gpufabric.catalog import load_catalog
    from pytest_gpufabric.reporting.acceptance.build import build_report
    from pytest_gpufabric.reporting.acceptance.comparison import resolve_results
    from pytest_gpufabric.signoff.run_setup import load_deviations
    from pytest_gpufabric.signoff.runs import resolve_run

    root = Path(args.results_root)
    run, *retests = (resolve_run(text, root) for text in args.runs)
    recording = Path(args.recording) if args.recording else None
    baseline = resolve_results(args.compare_with, root) if args.compare_with else None
    deviations = load_deviations(Path(args.deviations) if args.deviations else None,
                                 frozenset(spec.id for spec in load_catalog()))
    files = build_report(run, Path(args.output), recording, retests=retests, deviations=deviations,
                         pdf=not args.no_pdf, paper=args.paper, compare_with=baseline)
    print("\n".join(files.summary_lines()))
    return EXIT_OK


def _cmd_compare(args: argparse.Namespace) -> int:
    """pytest-benchmark's ``compare`` for fabric runs: the differences of NEW from OLD, exit 1 with
    ``--compare-fail`` when something regressed or newly failed."""
    from pytest_gpufabric.reporting.acceptance.comparison import (
        compare_runs,
        comparison_section,
        parse_tolerance,
        resolve_results,
        terminal_lines,
        write_csv,
    )
    from pytest_gpufabric.reporting.acceptance.page import page

    root = Path(args.results_root)
    old, new = (resolve_results(ref, root) for ref in (args.old, args.new))
    tolerance = parse_tolerance(args.tolerance) if args.tolerance else None
    found = compare_runs(old, new, tolerance)
    print("\n".join(terminal_lines(found, shown=10**9 if args.all else 20)))
    if args.csv:
        print(f"csv: {write_csv(found, Path(args.csv))}")
    if args.html:
        Path(args.html).write_text(page(f"Fabric comparison: {found.new.info.site}", [comparison_section(found)]), encoding="utf-8")
        print(f"html: {args.html}")
    return EXIT_FAIL if args.compare_fail and found.comparison.worse else EXIT_OK


RUN_HELP = ("run the acceptance suite installed with the plugin: gpufabric run --cluster site.yaml [any pytest "
            "option, e.g. -n 16 --record DIR]")


def run_suite(pytest_args: Sequence[str]) -> int:
    """``pytest`` on the installed acceptance suite, with the same test ids as ``pytest suites/acceptance`` in a
    checkout (the rootdir is the suite's parent of ``suites/``), and pytest's cache (``--lf``) in this folder.
    pytest replaces this process (the environment's own ``pytest`` script): the plugin is then imported by
    pytest itself, as in any pytest run."""
    suite = default_suite_dir()
    options = [str(suite), f"--rootdir={suite.parents[1]}", "-o", f"cache_dir={Path.cwd() / '.pytest_cache'}", *pytest_args]
    script = Path(sys.executable).parent / "pytest"
    if script.is_file():
        sys.stdout.flush()
        os.execv(script, [str(script), *options])
    import pytest  # no pytest script beside this interpreter: run it here

    return int(pytest.main(options))


def build_parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="gpufabric", description="GPU fabric acceptance tests (pytest-gpufabric)")
    sub = root.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help=RUN_HELP, add_help=False)
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to pytest (pytest --help lists them)")
    run.set_defaults(func=lambda args: run_suite(args.pytest_args))
    checks = sub.add_parser("checks", help="list the implemented checks with their sources")
    checks.add_argument("--json", action="store_true", help="machine-readable output")
    checks.add_argument("--suite", default=str(default_suite_dir()), help="acceptance suite directory")
    checks.set_defaults(func=_cmd_checks)
    inventory = sub.add_parser("inventory", help="inventory tools").add_subparsers(dest="action", required=True)
    validate = inventory.add_parser("validate", help="validate a site.yaml")
    validate.add_argument("file")
    validate.add_argument("--thresholds-dir", default=str(default_thresholds_dir(Path.cwd())))
    validate.add_argument("--scrub", metavar="REGEX", action="append", default=[], help="as pytest's --scrub")
    validate.set_defaults(func=_cmd_inventory_validate)
    parse = sub.add_parser("parse", help="print what a parser extracts from a raw tool output, as JSON")
    parse.add_argument("tool", nargs="?")
    parse.add_argument("file", nargs="?", help="raw output file, or - for standard input")
    parse.add_argument("--list", action="store_true", help="name the parsers")
    parse.set_defaults(func=_cmd_parse)
    add_preflight_parser(sub)
    add_discover_parser(sub)
    add_baseline_parser(sub)
    add_recording_parser(sub)
    report = sub.add_parser("report", help="build the acceptance report (HTML, XLSX, CSV, PDF) of a run's results")
    report.add_argument("runs", metavar="RUN", nargs="+",
                        help="the acceptance run, then its retests in order: a run directory, its results.jsonl, a run "
                             "id under --results-root, or a results root (its latest run); a retest alone brings the "
                             "runs it retests")
    report.add_argument("--results-root", metavar="DIR", default="gpufabric-results", help="where run ids are looked up")
    report.add_argument("--recording", metavar="DIR", help="the run's recording: raw evidence, per-size collective tables")
    report.add_argument("--deviations", metavar="FILE", help="approved deviations, besides those the runs recorded")
    report.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size of the PDF files")
    report.add_argument("-o", "--output", metavar="OUT", required=True, help="directory to write the report into")
    report.add_argument("--no-pdf", action="store_true", help="do not print the PDF files")
    report.add_argument("--compare-with", metavar="RUN", help="embed the comparison with this baseline run (a run "
                        "directory, its results.jsonl, or a run id under --results-root)")
    report.set_defaults(func=_cmd_report)
    compare = sub.add_parser("compare", help="what got worse or better from run OLD to run NEW, per item and NIC pair")
    compare.add_argument("old", metavar="OLD", help="results.jsonl, its directory, or a run id")
    compare.add_argument("new", metavar="NEW", help="results.jsonl, its directory, or a run id")
    compare.add_argument("--results-root", metavar="DIR", default=DEFAULT_RESULTS_DIR, help="where run ids are looked up")
    compare.add_argument("--tolerance", help="relative change that counts, e.g. 5%% (default: the profile's compare.tolerance)")
    compare.add_argument("--csv", metavar="FILE", help="write every difference as CSV")
    compare.add_argument("--html", metavar="FILE", help="write the comparison as an HTML page")
    compare.add_argument("--all", action="store_true", help="list every difference (default: the first 20 of each kind)")
    compare.add_argument("--compare-fail", action="store_true", help="exit 1 when something regressed or newly failed")
    compare.set_defaults(func=_cmd_compare)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    import pytest_gpufabric.parsers.all  # noqa: F401  (registers every parser)

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:  # every other word is pytest's (argparse would take its options for ours)
        return run_suite(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except GpufabricError as exc:
        print(f"gpufabric: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
