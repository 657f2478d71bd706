"""The run's side of the report (controller only): ``run.json`` when the run starts and ends, a title naming
the site and a summary table on pytest-html's page, and with ``--gpufabric-report=DIR`` the acceptance
report at the end (also of an interrupted run)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric import __version__
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.reporting.acceptance.runinfo import ProfileInfo, RunInfo, now_text, write_run_info


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

    def __init__(self, results_dir: Path, info: RunInfo, report_dir: Path | None, recording: Path | None,
                 records: Callable[[], list[dict[str, Any]]], baseline: Path | None = None) -> None:
        self.baseline = baseline
        self.results_dir = results_dir
        self.info = info
        self.records = records
        self.report_dir = report_dir
        self.recording = recording
        write_run_info(results_dir, info)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, exitstatus: int) -> None:
        """Also after Ctrl-C: the report then says the run was interrupted and shows what completed."""
        self.info = self.info.finished_now(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)
        write_run_info(self.results_dir, self.info)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Runs after every sessionfinish hook, so results.jsonl is complete (sorted) by now."""
        if self.report_dir is None:
            return
        from pytest_gpufabric.reporting.acceptance.build import build_report

        terminalreporter.write_sep("-", "gpufabric acceptance report")
        try:
            files = build_report(self.results_dir, self.report_dir, self.recording, compare_with=self.baseline)
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
        from pytest_gpufabric.reporting.acceptance.summary_sections import verdict_line

        model = build_model(self.records(), self.info)
        areas = model.area_summary().rename(columns=OUTCOME_LABELS)
        head = "".join(f"<th>{escape(str(c))}</th>" for c in ["area", *areas.columns])
        rows = "".join(f"<tr><td>{escape(str(area))}</td>" + "".join(f"<td>{int(v)}</td>" for v in row) + "</tr>"
                       for area, row in areas.iterrows())
        profiles = ", ".join(f"{p.name} ({p.title})" for p in self.info.profiles) or self.info.profile
        prefix.append(
            f"<div id='gpufabric-summary'><p><b>site</b> {escape(self.info.site)} &nbsp; <b>profile</b> {escape(profiles)}"
            f" &nbsp; <b>verdict</b> {escape(verdict_line(model))}</p>"
            f"<table id='gpufabric-areas'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
        )
