"""The end of a run on the controller: the fleet analysis of its records (the run summary line of
``results.jsonl``), the outliers in the terminal (warnings; failures of the run where the profile says
``outliers: {verdict: fail}``), and with ``--compare-with RUN`` what changed since that run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_gpufabric.checks.localization import summary_lines
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.reporting.acceptance.fleet_view import FleetAnalysis, analyse_records, run_summary, terminal_lines
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo

if TYPE_CHECKING:
    from pytest_gpufabric.signoff.acceptance import Acceptance


class FleetReporting:
    """Registered on the controller (or the only process) of a run with a cluster."""

    def __init__(self, info: RunInfo, results_file: Path, baseline: Path | None) -> None:
        self.info, self.results_file, self.baseline = info, results_file, baseline
        self.analysis: FleetAnalysis | None = None
        self.records: list[dict[str, Any]] = []
        self.session: pytest.Session | None = None

    def summarize(self, records: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The run summary of the finished run's records (``ResultsWriter`` writes it as the file's last line)."""
        if not records:
            return None
        self.records = records
        self.analysis = analyse_records(records, self.info)
        return run_summary(self.analysis)

    def failing_outliers(self, acceptance: Acceptance) -> int:
        """Outliers that fail the run by their profile's rule among the records ``acceptance`` judges: this run's
        (analysed at its end), or a retest's merged with the runs it retests (analysed as the report does)."""
        if len(acceptance.runs) == 1:
            return len(self.analysis.failing) if self.analysis is not None else 0
        return len(analyse_records(acceptance.records, acceptance.info).failing)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Runs after every sessionfinish hook: results.jsonl holds every record and the run summary."""
        if self.analysis is not None:
            analysis = self.analysis
            terminalreporter.write_sep("-", "gpufabric fleet outliers")
            outlier_suspects = [line for line in summary_lines(analysis.localization(self.records))
                                if line.startswith("outlier ")]
            for line in terminal_lines(analysis, lambda: outlier_suspects):
                terminalreporter.write_line(line)
            failing = len(analysis.failing)
            if failing and self.session is not None:
                terminalreporter.write_line(f"FAILED: {failing} outliers, and the profile fails outliers (outliers: verdict fail)")
                if self.session.exitstatus == pytest.ExitCode.OK:
                    self.session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.baseline is not None:
            self._compare(terminalreporter)

    def _compare(self, terminalreporter: Any) -> None:
        from pytest_gpufabric.reporting.acceptance.comparison import compare_runs
        from pytest_gpufabric.reporting.acceptance.comparison import terminal_lines as comparison_lines

        terminalreporter.write_sep("-", f"gpufabric compare with {self.baseline}")
        try:
            found = compare_runs(self.baseline, self.results_file)  # type: ignore[arg-type]
        except GpufabricError as exc:
            terminalreporter.write_line(f"no comparison: {exc}")
            return
        for line in comparison_lines(found):
            terminalreporter.write_line(line)
