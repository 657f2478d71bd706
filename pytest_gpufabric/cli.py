"""The ``gpufabric`` command: list checks, validate an inventory, show what a parser extracts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.discovery.baseline_cli import add_baseline_parser
from pytest_gpufabric.discovery.cli import add_discover_parser
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.options import default_thresholds_dir
from pytest_gpufabric.parsers.registry import PARSERS, to_plain
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
        {"id": c.id, "title": c.title, "scope": c.scope, "applies": list(c.applies), "source": c.source, "tests": tests[c.id]}
        for c in catalog
        if c.id in tests
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['id']:<9} {row['scope']:<13} {row['title']}\n{'':<23} source: {row['source']}")
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
    from pytest_gpufabric.reporting.acceptance.build import build_report

    recording = Path(args.recording) if args.recording else None
    files = build_report(Path(args.results), Path(args.output), recording, pdf=not args.no_pdf)
    print("\n".join(files.summary_lines()))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="gpufabric", description="GPU fabric acceptance tests (pytest-gpufabric)")
    sub = root.add_subparsers(dest="command", required=True)
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
    add_discover_parser(sub)
    add_baseline_parser(sub)
    add_recording_parser(sub)
    report = sub.add_parser("report", help="build the acceptance report (HTML, XLSX, CSV, PDF) of a run's results")
    report.add_argument("results", metavar="RESULTS_DIR_OR_FILE", help="results.jsonl, or the directory holding it")
    report.add_argument("--recording", metavar="DIR", help="the run's recording: raw evidence, per-size collective tables")
    report.add_argument("-o", "--output", metavar="OUT", required=True, help="directory to write the report into")
    report.add_argument("--no-pdf", action="store_true", help="do not print report.pdf")
    report.set_defaults(func=_cmd_report)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    import pytest_gpufabric.parsers.all  # noqa: F401  (registers every parser)

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
