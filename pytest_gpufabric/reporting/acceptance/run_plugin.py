"""The run's side of the report (controller only): the run's files when it starts recording and when it ends,
the verdict in the terminal, a title naming the site and a summary table on pytest-html's page, and with
``--gpufabric-report=DIR`` the acceptance report at the end (also of an interrupted run; of a retest, merged
with the runs it retests)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_gpufabric import __version__
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.reporting.acceptance.runinfo import ProfileInfo, RunInfo, now_text
from pytest_gpufabric.signoff.run_files import RunFiles

if TYPE_CHECKING:
    from pytest_gpufabric.signoff.acceptance import Acceptance


def profile_info(profile: Profile) -> ProfileInfo:
    """The cover's view of a profile; it requires the checks it holds expectations for, unless not applicable."""
    checks = tuple(sorted(check for check in profile.expectations if check not in profile.not_applicable))
    return ProfileInfo(profile.name, profile.title, dict(profile.documents), checks,
                       profile.outliers.as_plain() if profile.outliers else None,
                       profile.compare.as_plain() if profile.compare else None)


def run_info(inventory: Inventory, profiles: dict[str, Profile], run_id: str, mode: str, inventory_path: str) -> RunInfo:
    return RunInfo(
        site=inventory.site,
        profile=inventory.profile,
        profiles=tuple(profile_info(p) for _, p in sorted(profiles.items())),
        run_id=run_id,
        plugin_version=__version__,
        started=now_text(),
        mode=mode,
        inventory=inventory_path,
        rails={f"{node.name}/{nic.name}": nic.rail for node in inventory.nodes for nic in node.nics},
        leaves={f"{node.name}/{nic.name}": nic.switch for node in inventory.nodes for nic in node.nics if nic.switch},
        node_profiles={node.name: node.profile for node in inventory.nodes if node.profile and node.profile != inventory.profile},
    )


class RunReporting:
    """Registered on the controller (or the only process) of a run with a cluster."""

    def __init__(self, files: RunFiles, report_dir: Path | None, recording: Path | None,
                 records: Callable[[], list[dict[str, Any]]], paper: str = "a4", baseline: Path | None = None,
                 failing_outliers: Callable[[Acceptance], int] = lambda acceptance: 0) -> None:
        self.files = files
        self.baseline = baseline
        self.failing_outliers = failing_outliers
        self.records = records
        self.report_dir = report_dir
        self.recording = recording
        self.paper = paper

    @property
    def info(self) -> RunInfo:
        return self.files.info

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, exitstatus: int) -> None:
        """Also after Ctrl-C: the report then says the run was interrupted and shows what completed."""
        self.files.finish(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)

    def _verdict_line(self) -> str:
        from pytest_gpufabric.signoff.acceptance import load_acceptance

        acceptance = load_acceptance([self.files.directory.path])
        assert acceptance.verdict is not None
        verdict = replace(acceptance.verdict, failing_outliers=self.failing_outliers(acceptance))  # as the report's
        merged = f" (merged with {len(acceptance.runs) - 1} earlier runs)" if len(acceptance.runs) > 1 else ""
        return f"verdict{merged}: {verdict.line()}"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Runs after every sessionfinish hook, so results.jsonl is complete (sorted) by now."""
        if not self.files.started:
            return
        terminalreporter.write_sep("-", "gpufabric acceptance")
        try:
            terminalreporter.write_line(self._verdict_line())
            if self.report_dir is None:
                return
            from pytest_gpufabric.reporting.acceptance.build import build_report  # pandas, matplotlib: when asked

            files = build_report(self.files.directory.path, self.report_dir, self.recording, paper=self.paper,
                                 compare_with=self.baseline)
        except GpufabricError as exc:
            terminalreporter.write_line(f"acceptance report not written: {exc}")
            return
        for line in files.summary_lines():
            terminalreporter.write_line(line)

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_report_title(self, report: Any) -> None:
        report.title = f"{self.info.site}: GPU fabric acceptance ({self.info.profile})"

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_summary(self, prefix: list[str]) -> None:
        from pytest_gpufabric.reporting.acceptance.model import OUTCOME_LABELS, build_model
        from pytest_gpufabric.signoff.verdict import assess

        model = build_model(self.records(), self.info)
        verdict = assess(self.files.planned(), self.records(), self.files.deviations, datetime.now(timezone.utc).date(), True).line()
        areas = model.area_summary().rename(columns=OUTCOME_LABELS)
        head = "".join(f"<th>{escape(str(c))}</th>" for c in ["area", *areas.columns])
        rows = "".join(f"<tr><td>{escape(str(area))}</td>" + "".join(f"<td>{int(v)}</td>" for v in row) + "</tr>"
                       for area, row in areas.iterrows())
        profiles = ", ".join(f"{p.name} ({p.title})" for p in self.info.profiles) or self.info.profile
        prefix.append(
            f"<div id='gpufabric-summary'><p><b>site</b> {escape(self.info.site)} &nbsp; <b>profile</b> {escape(profiles)}"
            f" &nbsp; <b>verdict of this run</b> {escape(verdict)}</p>"
            f"<table id='gpufabric-areas'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
        )
