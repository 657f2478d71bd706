"""Time and size every file of the acceptance report of a SYNTHESIZED cluster, and how long Chromium takes to
open it (the figures of the README).

    python -m tools.report_scale --nodes 256 --rails 8 -o /tmp/report-scale [--pdf]
    python -m tools.report_scale --nodes 1024 --rails 8 --rounds 16 --no-tables -o /tmp/report-1024

Writes results.jsonl (tools/synthesize_results.py), the report (HTML, summary.xlsx, CSV files and, with --pdf,
report.pdf), then opens report.html#pairs in headless Chromium in a 1280 x 900 window (its first screen saved
as pairs-first-screen.png) and prints one line per file: its size, the build times (HTML wall and CPU, all
files) and the opening times (to the load event, the CPU time of Chromium's processes, and the page's own first
paint and load event).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from pytest_gpufabric.reporting.acceptance.build import build_report
from pytest_gpufabric.reporting.devtools import browser
from tools.synthesize_results import FAULTS, synthesize

WINDOW = (1280, 900)


def _mb(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB"


def _load() -> str:
    return "load average " + " ".join(f"{value:.1f}" for value in os.getloadavg())


def _open(html: Path, screenshot: Path, times: int) -> None:
    """Open the page ``times`` times (each from a blank page) and print each time; save the first screen."""
    with browser(timeout_s=120) as chromium:
        for _ in range(times):
            load = chromium.open(html, "pairs", WINDOW)
            print(f"Chromium, {html.name}#pairs in {WINDOW[0]}x{WINDOW[1]}: {load.seconds:.2f} s to the load event, "
                  f"{load.cpu_seconds:.2f} s of CPU in its processes "
                  f"(page: first contentful paint {load.first_contentful_paint_ms} ms, DOM ready "
                  f"{load.dom_content_loaded_ms:.0f} ms, load event {load.load_event_ms:.0f} ms); {_load()}")
        screenshot.write_bytes(chromium.screenshot())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=256)
    parser.add_argument("--rails", type=int, default=8)
    parser.add_argument("--rounds", type=int, help="only the node pairs of the first K circle rounds (1,024 nodes)")
    parser.add_argument("--pdf", action="store_true", help="also print report.pdf with headless Chromium")
    parser.add_argument("--no-tables", action="store_true", help="the HTML only (no summary.xlsx, no CSV files)")
    parser.add_argument("--opens", type=int, default=3, help="how many times Chromium opens the page (default: 3)")
    parser.add_argument("-o", "--output", required=True, type=Path)
    args = parser.parse_args()
    print(_load())
    started = time.perf_counter()
    synthesized = synthesize(args.output / "results", args.nodes, args.rails, FAULTS, args.rounds)
    print(f"results.jsonl: {_mb(synthesized.path)}, {sum(synthesized.outcomes.values())} items "
          f"({dict(synthesized.outcomes)}), synthesized in {time.perf_counter() - started:.1f} s; {_load()}")
    files = build_report(synthesized.path, args.output / "report", pdf=args.pdf, tables=not args.no_tables)
    print(f"report.html: {_mb(files.html)}, {files.html_seconds:.1f} s wall / {files.html_cpu_seconds:.1f} s CPU; {_load()}")
    if files.workbook is not None:
        print(f"summary.xlsx: {_mb(files.workbook)}")
    for csv in files.csvs:
        print(f"{csv.name}: {_mb(csv)}")
    for pdf in files.pdfs:
        print(f"{pdf.name}: {_mb(pdf)}")
    if not files.pdfs:
        print(files.pdf_note)
    print(f"every file: {files.seconds:.1f} s wall")
    _open(files.html, args.output / "pairs-first-screen.png", args.opens)


if __name__ == "__main__":
    main()
