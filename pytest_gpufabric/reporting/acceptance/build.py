"""Build the acceptance report of a run: ``report.html``, ``summary.xlsx``, CSV files and ``report.pdf``."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.checks.localization import Localization, localize, record_pair_outcomes
from pytest_gpufabric.reporting.acceptance import fabric_sections, findings_sections, signoff_sections, summary_sections
from pytest_gpufabric.reporting.acceptance.collectives import collective_curves
from pytest_gpufabric.reporting.acceptance.exports import Tables, write_tables
from pytest_gpufabric.reporting.acceptance.load import LoadedRun, cycle_collector_paused
from pytest_gpufabric.reporting.acceptance.measurements import measurement_table
from pytest_gpufabric.reporting.acceptance.model import ITEM_COLUMNS, ReportModel, build_model
from pytest_gpufabric.reporting.acceptance.page import page
from pytest_gpufabric.reporting.acceptance.pdf import print_parts
from pytest_gpufabric.reporting.acceptance.recorded import RecordedOutputs
from pytest_gpufabric.reporting.acceptance.versions import version_table
from pytest_gpufabric.signoff.acceptance import Acceptance, load_acceptance
from pytest_gpufabric.signoff.deviations import Deviation

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


def _localization(records: list[dict]) -> Localization:  # type: ignore[type-arg]
    """Suspects over the pair records, exactly as the terminal localizes them (failed: a judged value did not
    hold; an unmeasured pair is no evidence against its ends)."""
    return localize(outcome for record in records for outcome in record_pair_outcomes(record))


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


def _tables(model: ReportModel, versions: pd.DataFrame, acceptance: Acceptance) -> Tables:
    _, total, bad = model.node_check_matrix()
    node_check = (bad.fillna(0).astype(int).astype(str) + "/" + total.fillna(0).astype(int).astype(str)).where(total.notna(), "")
    results = model.items[list(ITEM_COLUMNS)]
    return Tables(summary=model.area_summary(), results=results, node_check=node_check, pairs=model.pairs,
                  pair_matrices=_pair_matrices(model.pairs), versions=versions,
                  measurements=measurement_table(acceptance.records, {r.info.run_id: r.info for r in acceptance.runs}))


def _banner(model: ReportModel, acceptance: Acceptance) -> list[str]:
    status = [] if model.info.complete else [summary_sections.run_status(model)]
    return status + list(_load_notes(acceptance.runs)) + list(acceptance.notes)


def build_report(results: Path, out: Path, recording: Path | None = None, *, retests: Sequence[Path] = (),
                 deviations: Sequence[Deviation] = (), tables: bool = True, pdf: bool = True,
                 paper: str = "a4") -> ReportFiles:
    """Everything from ``results`` (a run directory, its results.jsonl, or a results root: its latest run)
    merged with its ``retests`` (a retest alone brings the runs it retests), the run's deviations and
    ``deviations``, and, where given, the recording; the workbook and CSV files unless ``tables`` is false,
    the PDF files (signed part, evidence annex) on ``paper`` unless ``pdf`` is false."""
    with cycle_collector_paused():
        acceptance = load_acceptance([results, *retests], deviations)
        return _build(acceptance, out, recording, tables=tables, pdf=pdf, paper=paper)


def _build(acceptance: Acceptance, out: Path, recording: Path | None, *, tables: bool, pdf: bool, paper: str) -> ReportFiles:
    started, started_cpu = time.monotonic(), time.process_time()
    records = acceptance.records
    recorded = RecordedOutputs.open(recording)
    model = build_model(records, acceptance.info)
    titles = _titles(model)
    curves, thresholds = collective_curves(records, recorded)
    versions, odd = version_table(records, curves)
    failures = model.failures()
    approved = signoff_sections.approved_records(acceptance)
    signatories = tuple((p[0], p[1]) for p in acceptance.plan.sign_off) if acceptance.plan else ()
    sections = [
        signoff_sections.cover(model, acceptance, _report_date(model, acceptance.runs[-1].results_file),
                               _banner(model, acceptance), signatories, summary_sections.verdict_line(model)),
        signoff_sections.coverage(acceptance, titles),
        signoff_sections.deviations(acceptance),
        signoff_sections.retests(acceptance),
        signoff_sections.node_verdicts(acceptance),
        summary_sections.areas(model),
        summary_sections.node_check_matrix(model),
        fabric_sections.pair_heatmaps(model.pairs, titles, latency=False),
        fabric_sections.pair_heatmaps(model.pairs, titles, latency=True),
        fabric_sections.collectives(curves, thresholds, titles, recorded.available),
        findings_sections.versions(versions, odd),
        findings_sections.suspects(_localization(records)),
        findings_sections.failures(failures, titles, approved),
        signoff_sections.not_applicable(acceptance),
        findings_sections.appendix(failures, records, recorded),
    ]
    out.mkdir(parents=True, exist_ok=True)
    html = out / REPORT_HTML
    footer = f"{acceptance.report_id} rev {acceptance.revision}"
    text = page(f"Fabric acceptance report: {model.info.site}", sections)
    html.write_text(text, encoding="utf-8")
    html_seconds, html_cpu_seconds = time.monotonic() - started, time.process_time() - started_cpu
    workbook, csvs = write_tables(_tables(model, versions, acceptance), out) if tables else (None, [])
    pdfs, note = [], "PDF not asked for"
    if pdf:
        pdfs, note = print_parts(text, out, paper, footer)
    return ReportFiles(html, workbook, csvs, pdfs, note, html_seconds, html_cpu_seconds, time.monotonic() - started)
