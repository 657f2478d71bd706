"""The reports of the demo replay agree with its results file: Allure, pytest-html and the terminal count an
item that could not be measured as an error (Allure: broken), never as a failure."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from demo_run import DemoRun
from report_dom import rendered_result_rows


def test_the_demo_has_failures_and_unmeasured_items(demo_run: DemoRun) -> None:
    counts = demo_run.outcome_counts()

    assert counts["failed"] > 0 and counts["error"] > 0 and counts["passed"] > 0


def test_allure_failed_and_broken_equal_results_failed_and_error(
    demo_run: DemoRun, allure_report_of: Callable[[Path], Path]
) -> None:
    report = allure_report_of(demo_run.allure_results)
    statistic = json.loads((report / "widgets" / "summary.json").read_text(encoding="utf-8"))["statistic"]
    counts = demo_run.outcome_counts()

    assert (statistic["failed"], statistic["broken"]) == (counts["failed"], counts["error"])
    assert (statistic["passed"], statistic["skipped"]) == (counts["passed"], counts["skipped"])


def test_pytest_html_counts_and_rows_equal_results(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    rows = Counter(row.outcome for row in rendered_result_rows(rendered_dom(demo_run.html_report)))
    html = demo_run.html_report.read_text(encoding="utf-8")
    counts = demo_run.outcome_counts()

    assert rows == Counter({outcome: n for outcome, n in counts.items() if n})
    assert re.search(rf">\s*{counts['failed']} Failed,", html) and re.search(rf">\s*{counts['error']} Errors", html)


def test_terminal_counts_unmeasured_as_errors(demo_run: DemoRun) -> None:
    counts = demo_run.outcome_counts()

    assert f"{counts['failed']} failed" in demo_run.output and f"{counts['error']} errors" in demo_run.output
    assert f"{counts['failed']} failed, {counts['error']} not measured" in demo_run.output
