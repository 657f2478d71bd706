"""Render the README's screenshots of the acceptance report with headless Chromium.

    python -m tools.report_screenshots reports/acceptance/report.html docs/

writes docs/acceptance-report.png (the cover: verdict, totals, document control, scope),
docs/acceptance-report-coverage.png (coverage of the plan, deviations, retests, verdict per node) and
docs/acceptance-report-heatmap.png (PERF-002 rail 2, where the demo's bad cable is).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_gpufabric.reporting.render import render_html_in_chromium

VIEWS = (("acceptance-report.png", None, (1280, 1300)),
         ("acceptance-report-coverage.png", "nodes", (1280, 900)),
         ("acceptance-report-heatmap.png", "heatmap-PERF-002-rail-2", (1280, 900)))
RENDER_TIMEOUT_S = 240.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="report.html of the demo")
    parser.add_argument("out", type=Path, help="folder of the screenshots (docs/)")
    args = parser.parse_args()
    for name, fragment, size in VIEWS:
        render_html_in_chromium(args.report, args.out / name, fragment=fragment, window_size=size,
                                timeout_s=RENDER_TIMEOUT_S)
        print(args.out / name)


if __name__ == "__main__":
    main()
