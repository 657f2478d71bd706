"""``gpufabric compare OLD NEW`` and ``--compare-with RUN``: two runs' results files compared (``fleet.compare``),
as terminal text, a CSV file and an HTML section (in the acceptance report, or a page of its own)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.fleet.compare import CATEGORIES, Comparison, RunValues, compare
from pytest_gpufabric.fleet.rules import CompareRule
from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, section, text
from pytest_gpufabric.reporting.acceptance.load import cycle_collector_paused, read_records
from pytest_gpufabric.reporting.acceptance.model import nodes_of
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, read_run_info
from pytest_gpufabric.signoff.runs import RESULTS_FILE, run_directory_of

SHOWN_PER_CATEGORY = 20
TOLERANCE = re.compile(r"^(\d+(?:\.\d+)?)(%?)$")


def resolve_results(ref: str, root: Path) -> Path:
    """The results file a run reference names: a results file, a run directory, a results root (its latest run),
    or a run id under the results ``root`` (``latest``, an id, or a unique start of one). Links are followed, so
    the file stays that run's when ``latest`` moves on to a new run. One line of error when none or several match."""
    path = Path(ref)
    if path.is_file():
        return path.resolve()
    if not path.exists():
        path = _run_under(ref, root)
    return (run_directory_of(path) / RESULTS_FILE).resolve()


def _run_under(ref: str, root: Path) -> Path:
    """The run directory of ``root`` that ``ref`` names: exactly, else by the unique start of its id."""
    if (root / ref).is_dir():
        return root / ref
    found = sorted(candidate for candidate in root.glob(f"{glob_escape(ref)}*")
                   if candidate.is_dir() and not candidate.is_symlink()) if ref and root.is_dir() else []
    if len(found) == 1:
        return found[0]
    if found:
        raise UsageError(f"run {ref!r} is ambiguous in {root}: {', '.join(c.name for c in found)}")
    raise UsageError(f"no results for {ref!r}: not a file or directory, and no run with that id in {root} "
                     "(give a run directory, its results.jsonl, or a run id with --results-root)")


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def parse_tolerance(text: str) -> float:
    """``5%`` or ``0.05`` (pytest-benchmark's ``--benchmark-compare-fail`` writes ``min:5%``)."""
    match = TOLERANCE.match(text.strip())
    value = float(match.group(1)) / (100 if match.group(2) else 1) if match else -1.0
    if not 0 < value < 1:
        raise UsageError(f"tolerance {text!r}: expected a relative change such as 5% or 0.05 (between 0 and 100 %)")
    return value


@dataclass(frozen=True)
class LoadedValues:
    path: Path
    info: RunInfo
    values: RunValues

    @property
    def label(self) -> str:
        return f"{self.info.run_id or 'run'} ({self.path})"


def load_values(path: Path) -> LoadedValues:
    """What a comparison needs of the results file at ``path``, read in one pass (the records are not kept)."""
    values = RunValues()

    def keep_nothing(record: dict[str, Any]) -> dict[str, Any]:
        values.take(record)
        return {}

    with cycle_collector_paused():
        read_records(path, keep=keep_nothing)
    return LoadedValues(path, read_run_info(path.parent) or RunInfo(), values)


@dataclass(frozen=True)
class RunComparison:
    """A comparison with the runs it compares and the tolerance used (and where it comes from)."""

    old: LoadedValues
    new: LoadedValues
    comparison: Comparison
    tolerance: str


def _rules(info: RunInfo) -> dict[str, CompareRule]:
    return {p.name: rule for p in info.profiles if p.compare and (rule := CompareRule.from_plain(p.compare)) is not None}


def compare_runs(old_path: Path, new_path: Path, tolerance: float | None = None) -> RunComparison:
    """Compare two results files; the tolerance is ``tolerance`` when given, else the newer run's profiles'
    ``compare.tolerance`` (per node); a one-line error when neither says."""
    old, new = load_values(old_path), load_values(new_path)
    rules = _rules(new.info) or _rules(old.info)
    if tolerance is not None:
        described = f"{tolerance:.1%} (given)"

        def tolerance_of(items: pd.Series) -> pd.Series:
            return pd.Series(tolerance, index=items.index)
    else:
        site = rules.get(new.info.profile) or next(iter(rules.values()), None)
        if site is None:
            raise UsageError("no comparison tolerance: the runs' profiles have no compare.tolerance "
                             "(thresholds/<profile>.yaml); give --tolerance, e.g. 5%")
        grouped: dict[tuple[float, str], list[str]] = {}
        for name, rule in sorted(rules.items()):
            grouped.setdefault((rule.tolerance, rule.source), []).append(name)
        described = "; ".join(f"{value:.1%} (compare.tolerance of {', '.join(names)}: {source})"
                              for (value, source), names in grouped.items())

        def tolerance_of(items: pd.Series) -> pd.Series:
            profiles = items.map(lambda item: new.info.profile_of((nodes_of(item) or ("",))[0]))
            return profiles.map(lambda name: (rules.get(name) or site).tolerance).astype(float)
    return RunComparison(old, new, compare(old.values, new.values, tolerance_of), described)


def _change(row: pd.Series) -> str:
    change = pd.to_numeric(row["change"], errors="coerce")
    return "" if pd.isna(change) else f" ({change:+.1%})"


def _row_text(row: pd.Series) -> str:
    where = f" {row['pair']}" if row["pair"] else ""
    if row["category"] in ("regressions", "improvements", "changed"):
        unit = f" {row['unit']}" if row["unit"] else ""
        direction = f" [{row['where']}]" if row["where"] and row["where"] != row["pair"] else ""
        return (f"{row['check_id']} {row['item']}{where}: {row['metric']}{direction} {text(row['old'])} -> "
                f"{text(row['new'])}{unit}{_change(row)}")
    outcomes = " -> ".join(str(row[key]) for key in ("old", "new") if isinstance(row[key], str))
    return f"{row['check_id']} {row['item']}{where}: {outcomes}"


def terminal_lines(found: RunComparison, shown: int = SHOWN_PER_CATEGORY) -> list[str]:
    """What the terminal prints: the runs, the tolerance, then each category with its first rows."""
    counts = found.comparison.counts()
    lines = [f"old: {found.old.label}", f"new: {found.new.label}", f"tolerance: {found.tolerance}",
             ", ".join(f"{counts[c]} {c}" for c in CATEGORIES)]
    for category in CATEGORIES:
        rows = found.comparison.of(category)
        if rows.empty:
            continue
        lines.append(f"{category} ({len(rows)}):")
        lines += [f"  {_row_text(row)}" for _, row in rows.head(shown).iterrows()]
        if len(rows) > shown:
            lines.append(f"  ... and {len(rows) - shown} more (CSV)")
    return lines


def write_csv(found: RunComparison, path: Path) -> Path:
    found.comparison.rows.to_csv(path, index=False)
    return path


def comparison_section(found: RunComparison | None) -> str:
    """The report's comparison section (every difference; an empty section without a baseline)."""
    title = "Comparison with a baseline run"
    if found is None:
        return section("comparison", title, ["<p>No baseline: build the report with --compare-with RUN.</p>"])
    counts = found.comparison.counts()
    summary = "".join(f"<li><b>{counts[c]}</b> {escape(c)}</li>" for c in CATEGORIES)
    facts = (f"<table class='facts'><tr><th>baseline</th><td id='comparison-old'>{escape(found.old.label)}</td></tr>"
             f"<tr><th>this run</th><td id='comparison-new'>{escape(found.new.label)}</td></tr>"
             f"<tr><th>tolerance</th><td>{escape(found.tolerance)}</td></tr></table>")
    body = [facts, f"<ul id='comparison-counts'>{summary}</ul>"]
    for category in CATEGORIES:
        rows = found.comparison.of(category)
        if rows.empty:
            continue
        css = "o-failed" if category in ("new failures", "regressions") else "o-passed" if category in (
            "fixed failures", "improvements") else ""
        cells = "".join(f"<tr{attrs({'class': css or None, 'data-category': category, 'data-node-id': row['node_id'], 'data-pair': row['pair'] or None})}>"
                        f"<td>{escape(_row_text(row))}</td></tr>" for _, row in rows.iterrows())
        body.append(f"<h3>{escape(category)} ({len(rows)})</h3><table class='grid comparison'><tbody>{cells}</tbody></table>")
    return section("comparison", title, body, "What changed since the baseline run, per item and per NIC pair: values "
                   "beyond the tolerance (relative to the baseline), outcomes that changed, items in one run only.")
