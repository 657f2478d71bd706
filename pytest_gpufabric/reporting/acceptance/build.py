"""Build the acceptance report of a run: ``report.html``, ``summary.xlsx``, CSV files and ``report.pdf``."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.reporting.acceptance import fabric_sections, findings_sections, fleet_sections, pair_views, summary_sections
from pytest_gpufabric.reporting.acceptance.collectives import collective_curves
from pytest_gpufabric.reporting.acceptance.comparison import RunComparison, compare_runs, comparison_section
from pytest_gpufabric.reporting.acceptance.digest import RunDigest
from pytest_gpufabric.reporting.acceptance.exports import Tables, print_pdf, write_tables
from pytest_gpufabric.reporting.acceptance.fleet_view import FleetAnalysis, analyse
from pytest_gpufabric.reporting.acceptance.load import LoadedRun, cycle_collector_paused, load_run, results_file_of
from pytest_gpufabric.reporting.acceptance.model import ITEM_COLUMNS, ReportModel, build_model
from pytest_gpufabric.reporting.acceptance.page import page
from pytest_gpufabric.reporting.acceptance.recorded import RecordedOutputs
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, read_run_info
from pytest_gpufabric.reporting.acceptance.versions import version_table

REPORT_HTML = "report.html"
REPORT_PDF = "report.pdf"


@dataclass(frozen=True)
class ReportFiles:
    """What a build wrote, and how long it took (the HTML alone: wall and CPU seconds; everything: wall)."""

    html: Path
    workbook: Path | None
    csvs: list[Path]
    pdf: Path | None
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


def _outlier_notes(analysis: FleetAnalysis) -> tuple[str, ...]:
    passing = analysis.passing
    if passing.empty:
        return ()
    failing = len(analysis.failing)
    what = f"{failing} of them fail the run (their profile's outliers: fail)" if failing else "a warning"
    return (f"{len(passing)} values pass their thresholds but are outliers among their peers: {what}; see Outliers "
            "and Suspects.",)


def _report_date(model: ReportModel, results_file: Path) -> str:
    if model.info.finished or model.info.started:
        return model.info.finished or model.info.started
    stamp = dt.datetime.fromtimestamp(results_file.stat().st_mtime, dt.timezone.utc)
    return stamp.strftime("%Y-%m-%d %H:%M:%S UTC") + " (results file)"


def _load_notes(run: LoadedRun) -> tuple[str, ...]:
    if not run.cut_off_last_line:
        return ()
    return (f"The last line of {run.results_file.name} was cut off (the run stopped while writing it); that item "
            "is left out.",)


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


def _tables(model: ReportModel, versions: pd.DataFrame, analysis: FleetAnalysis, compared: RunComparison | None) -> Tables:
    _, total, bad = model.node_check_matrix()
    node_check = (bad.fillna(0).astype(int).astype(str) + "/" + total.fillna(0).astype(int).astype(str)).where(total.notna(), "")
    results = model.items[list(ITEM_COLUMNS)]
    pairs = model.pairs.assign(outlier=analysis.pairs.outlier.astype(bool))
    return Tables(summary=model.area_summary(), results=results, node_check=node_check, pairs=pairs,
                  pair_matrices=_pair_matrices(model.pairs), versions=versions, statistics=analysis.statistics,
                  outliers=analysis.outliers, comparison=compared.comparison.rows if compared else None)


def build_report(results: Path, out: Path, recording: Path | None = None, *, tables: bool = True,
                 pdf: bool = True, compare_with: Path | None = None) -> ReportFiles:
    """Everything from ``results`` (a results.jsonl or its directory) and, where given, the recording; the
    workbook and CSV files unless ``tables`` is false, the PDF unless ``pdf`` is false; with ``compare_with``
    (a baseline run's results file) the comparison with it."""
    with cycle_collector_paused():
        return _build(results, out, recording, tables=tables, pdf=pdf, compare_with=compare_with)


def _build(results: Path, out: Path, recording: Path | None, *, tables: bool, pdf: bool,
           compare_with: Path | None) -> ReportFiles:
    started, started_cpu = time.monotonic(), time.process_time()
    results_file = results_file_of(results)
    digest = RunDigest((read_run_info(results_file.parent) or RunInfo()).rails)
    run = load_run(results_file, keep=digest.take)
    recorded = RecordedOutputs.open(recording)
    model = build_model(run.records, run.info, pairs=digest.pairs_frame())
    analysis = analyse(digest, run.info)
    model = replace(model, failing_outliers=len(analysis.failing))
    localization = analysis.localization()
    titles = _titles(model)
    curves, thresholds = collective_curves(run.records, recorded)
    versions, odd = version_table(run.records, curves)
    failures = model.failures()
    compared = compare_runs(compare_with, results_file) if compare_with is not None else None
    sections = [
        summary_sections.cover(model, _report_date(model, run.results_file), _load_notes(run) + _outlier_notes(analysis)),
        summary_sections.areas(model),
        summary_sections.node_check_matrix(model),
        pair_views.pair_section(model.pairs, analysis.pairs, localization, run.info.leaves, titles, latency=False),
        pair_views.pair_section(model.pairs, analysis.pairs, localization, run.info.leaves, titles, latency=True),
        fabric_sections.collectives(curves, thresholds, titles, recorded.available),
        findings_sections.versions(versions, odd),
        findings_sections.suspects(localization),
        fleet_sections.outliers(analysis),
        fleet_sections.statistics(analysis),
        comparison_section(compared),
        findings_sections.failures(failures, titles),
        findings_sections.appendix(failures, run.records, recorded),
    ]
    out.mkdir(parents=True, exist_ok=True)
    html = out / REPORT_HTML
    html.write_text(page(f"Fabric acceptance report: {model.info.site}", sections), encoding="utf-8")
    html_seconds, html_cpu_seconds = time.monotonic() - started, time.process_time() - started_cpu
    workbook, csvs = write_tables(_tables(model, versions, analysis, compared), out) if tables else (None, [])
    pdf_path, note = None, "report.pdf not asked for"
    if pdf:
        note = print_pdf(html, out / REPORT_PDF)
        pdf_path = out / REPORT_PDF if (out / REPORT_PDF).is_file() else None
    return ReportFiles(html, workbook, csvs, pdf_path, note, html_seconds, html_cpu_seconds, time.monotonic() - started)
