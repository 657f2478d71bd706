"""Build the acceptance report of a run: ``report.html``, ``summary.xlsx``, CSV files and ``report.pdf``."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.reporting.acceptance import (
    fabric_sections,
    findings_sections,
    fleet_sections,
    pair_views,
    signoff_sections,
    summary_sections,
)
from pytest_gpufabric.reporting.acceptance.collectives import collective_curves
from pytest_gpufabric.reporting.acceptance.comparison import RunComparison, compare_runs, comparison_section
from pytest_gpufabric.reporting.acceptance.digest import RunDigest
from pytest_gpufabric.reporting.acceptance.exports import Tables, write_tables
from pytest_gpufabric.reporting.acceptance.fleet_view import FleetAnalysis, analyse
from pytest_gpufabric.reporting.acceptance.load import LoadedRun, cycle_collector_paused
from pytest_gpufabric.reporting.acceptance.measurements import measurement_table, record_rows
from pytest_gpufabric.reporting.acceptance.model import ITEM_COLUMNS, ReportModel, build_model
from pytest_gpufabric.reporting.acceptance.page import page
from pytest_gpufabric.reporting.acceptance.pdf import print_parts
from pytest_gpufabric.reporting.acceptance.recorded import RecordedOutputs
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, read_run_info
from pytest_gpufabric.reporting.acceptance.versions import version_table
from pytest_gpufabric.signoff.acceptance import Acceptance, load_acceptance
from pytest_gpufabric.signoff.deviations import Deviation
from pytest_gpufabric.signoff.runs import run_directory_of

REPORT_HTML = "report.html"


@dataclass(frozen=True)
class ReportFiles:
    """What a build wrote, and how long it took (the HTML alone: wall and CPU seconds; everything: wall)."""

    html: Path
    workbook: Path | None
    csvs: list[Path]
    pdfs: list[Path]
    pdf_note: str
    html_seconds: float
    html_cpu_seconds: float
    seconds: float

    def summary_lines(self) -> list[str]:
        """What the command line and the end of a run print."""
        tables = (f"tables: {self.workbook.resolve()} and {len(self.csvs)} CSV files" if self.workbook
                  else "tables not asked for")
        return [f"acceptance report: {self.html.resolve()} (HTML {self.html_seconds:.1f} s, all files {self.seconds:.1f} s)",
                tables, self.pdf_note]


def _titles(model: ReportModel) -> dict[str, str]:
    titles = {spec.id: spec.title for spec in load_catalog()}
    titles.update({str(c): str(t) for c, t in model.items[["check_id", "title"]].dropna().itertuples(index=False)})
    return titles


def _report_date(model: ReportModel, results_file: Path) -> str:
    if model.info.finished or model.info.started:
        return model.info.finished or model.info.started
    stamp = dt.datetime.fromtimestamp(results_file.stat().st_mtime, dt.timezone.utc)
    return stamp.strftime("%Y-%m-%d %H:%M:%S UTC") + " (results file)"


def _load_notes(runs: Sequence[LoadedRun]) -> tuple[str, ...]:
    return tuple(f"The last line of {run.results_file} was cut off (the run stopped while writing it); that item "
                 "is left out." for run in runs if run.cut_off_last_line)


def _pair_matrices(pairs: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Node x node (worst value of the pair, both triangles) per check, metric and rail."""
    matrices = []
    for (check_id, metric, rail), group in pairs.groupby(["check_id", "metric", "rail"], sort=True):
        both = pd.concat([group[["node_a", "node_b", "value"]],
                          group[["node_b", "node_a", "value"]].set_axis(["node_a", "node_b", "value"], axis=1)])
        matrix = both.pivot_table(index="node_a", columns="node_b", values="value", aggfunc="min")
        matrix.index.name = "node"
        unit, expected = group["unit"].iloc[0], group["expected"].iloc[0]
        matrices.append((f"{check_id} {metric} rail {rail} ({unit}; threshold {expected})", matrix))
    return matrices


def _tables(model: ReportModel, versions: pd.DataFrame, acceptance: Acceptance, digest: RunDigest,
            analysis: FleetAnalysis, compared: RunComparison | None) -> Tables:
    _, total, bad = model.node_check_matrix()
    node_check = (bad.fillna(0).astype(int).astype(str) + "/" + total.fillna(0).astype(int).astype(str)).where(total.notna(), "")
    results = model.items[list(ITEM_COLUMNS)]
    measurements = (digest.measurements_frame() if acceptance.digested else
                    measurement_table(acceptance.records, {r.info.run_id: r.info for r in acceptance.runs}))
    pairs = model.pairs.assign(outlier=analysis.pairs.outlier.astype(bool))
    return Tables(summary=model.area_summary(), results=results, node_check=node_check, pairs=pairs,
                  pair_matrices=_pair_matrices(model.pairs), versions=versions, measurements=measurements,
                  statistics=analysis.statistics, outliers=analysis.outliers,
                  comparison=compared.comparison.rows if compared else None)


def _outlier_notes(analysis: FleetAnalysis) -> tuple[str, ...]:
    passing = analysis.passing
    if passing.empty:
        return ()
    failing = len(analysis.failing)
    what = f"{failing} of them fail the run (their profile's outliers: fail)" if failing else "a warning"
    return (f"{len(passing)} values pass their thresholds but are outliers among their peers: {what}; see Outliers "
            "and Suspects.",)


def _banner(model: ReportModel, acceptance: Acceptance) -> list[str]:
    status = [] if model.info.complete else [summary_sections.run_status(model)]
    return status + list(_load_notes(acceptance.runs)) + list(acceptance.notes)


def build_report(results: Path, out: Path, recording: Path | None = None, *, retests: Sequence[Path] = (),
                 deviations: Sequence[Deviation] = (), tables: bool = True, pdf: bool = True,
                 paper: str = "a4", compare_with: Path | None = None) -> ReportFiles:
    """Everything from ``results`` (a run directory, its results.jsonl, or a results root: its latest run)
    merged with its ``retests`` (a retest alone brings the runs it retests), the run's deviations and
    ``deviations``, and, where given, the recording; the workbook and CSV files unless ``tables`` is false,
    the PDF files (signed part, evidence annex) on ``paper`` unless ``pdf`` is false; with ``compare_with``
    (a baseline run's results file) the comparison with it. A run without retests is read in one pass
    (``digest``): its passed records are kept without their details."""
    started, started_cpu = time.monotonic(), time.process_time()
    with cycle_collector_paused():
        info = read_run_info(run_directory_of(results)) or RunInfo()
        digest = RunDigest(info.rails, (lambda record: record_rows(record, info)) if tables else None)
        acceptance = load_acceptance([results, *retests], deviations, keep=digest.take)
        if not acceptance.digested:
            for record in acceptance.records:
                digest.add(record)
        return _build(acceptance, digest, out, recording, tables=tables, pdf=pdf, paper=paper, compare_with=compare_with,
                      started=(started, started_cpu))


def _build(acceptance: Acceptance, digest: RunDigest, out: Path, recording: Path | None, *, tables: bool, pdf: bool,
           paper: str, compare_with: Path | None, started: tuple[float, float]) -> ReportFiles:
    started_wall, started_cpu = started
    records = acceptance.records
    recorded = RecordedOutputs.open(recording)
    model = build_model(records, acceptance.info, pairs=digest.pairs_frame())
    analysis = analyse(digest, acceptance.info)
    model = replace(model, failing_outliers=len(analysis.failing))
    if acceptance.verdict is not None:
        acceptance = replace(acceptance, verdict=replace(acceptance.verdict, failing_outliers=len(analysis.failing)))
    localization = analysis.localization(records)
    compared = compare_runs(compare_with, acceptance.runs[-1].results_file) if compare_with is not None else None
    titles = _titles(model)
    curves, thresholds = collective_curves(records, recorded)
    versions, odd = version_table(records, curves)
    failures = model.failures()
    approved = signoff_sections.approved_records(acceptance)
    signatories = tuple((p[0], p[1]) for p in acceptance.plan.sign_off) if acceptance.plan else ()
    sections = [
        signoff_sections.cover(model, acceptance, _report_date(model, acceptance.runs[-1].results_file),
                               _banner(model, acceptance) + list(_outlier_notes(analysis)), signatories,
                               summary_sections.verdict_line(model)),
        signoff_sections.coverage(acceptance, titles),
        signoff_sections.deviations(acceptance),
        signoff_sections.retests(acceptance),
        signoff_sections.node_verdicts(acceptance),
        summary_sections.areas(model),
        summary_sections.node_check_matrix(model),
        pair_views.pair_section(model.pairs, analysis.pairs, localization, acceptance.info.leaves, titles, latency=False),
        pair_views.pair_section(model.pairs, analysis.pairs, localization, acceptance.info.leaves, titles, latency=True),
        fabric_sections.collectives(curves, thresholds, titles, recorded.available),
        findings_sections.versions(versions, odd),
        findings_sections.suspects(localization),
        fleet_sections.outliers(analysis),
        fleet_sections.statistics(analysis),
        comparison_section(compared),
        findings_sections.failures(failures, titles, approved),
        signoff_sections.not_applicable(acceptance),
        findings_sections.appendix(failures, records, recorded),
    ]
    out.mkdir(parents=True, exist_ok=True)
    html = out / REPORT_HTML
    footer = f"{acceptance.report_id} rev {acceptance.revision}"
    text = page(f"Fabric acceptance report: {model.info.site}", sections)
    html.write_text(text, encoding="utf-8")
    html_seconds, html_cpu_seconds = time.monotonic() - started_wall, time.process_time() - started_cpu
    workbook, csvs = write_tables(_tables(model, versions, acceptance, digest, analysis, compared), out) if tables else (None, [])
    pdfs, note = [], "PDF not asked for"
    if pdf:
        pdfs, note = print_parts(text, out, paper, footer)
    return ReportFiles(html, workbook, csvs, pdfs, note, html_seconds, html_cpu_seconds, time.monotonic() - started_wall)
