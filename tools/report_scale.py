"""Time and size every file of the acceptance report of a SYNTHESIZED cluster (the figures of the README).

    python -m tools.report_scale --nodes 256 --rails 8 -o /tmp/report-scale [--pdf]

Writes results.jsonl (tools/synthesize_results.py) and the report (HTML, summary.xlsx, CSV files and, with
--pdf, report.pdf), then prints one line per file: its size, and the build times (HTML wall and CPU, all files).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from pytest_gpufabric.reporting.acceptance.build import build_report
from tools.synthesize_results import synthesize


def _mb(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=256)
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("--pdf", action="store_true", help="also print report.pdf with headless Chromium")
    parser.add_argument("-o", "--output", required=True, type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    synthesized = synthesize(args.output / "results", args.nodes, args.rails)
    print(f"results.jsonl: {_mb(synthesized.path)}, {sum(synthesized.outcomes.values())} items "
          f"({dict(synthesized.outcomes)}), synthesized in {time.perf_counter() - started:.1f} s")
    files = build_report(synthesized.path, args.output / "report", pdf=args.pdf)
    print(f"report.html: {_mb(files.html)}, {files.html_seconds:.1f} s wall / {files.html_cpu_seconds:.1f} s CPU")
    if files.workbook is not None:
        print(f"summary.xlsx: {_mb(files.workbook)}")
    for csv in files.csvs:
        print(f"{csv.name}: {_mb(csv)}")
    for pdf in files.pdfs:
        print(f"{pdf.name}: {_mb(pdf)}")
    if not files.pdfs:
        print(files.pdf_note)
    print(f"every file: {files.seconds:.1f} s wall")


if __name__ == "__main__":
    main()
