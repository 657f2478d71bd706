"""One acceptance from the files of a run and its retests: plan + merged results + deviations -> verdict."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.reporting.acceptance.load import LoadedRun, load_run
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo
from pytest_gpufabric.signoff.deviations import Deviation
from pytest_gpufabric.signoff.inputs import file_digest
from pytest_gpufabric.signoff.merge import Retest, merge_runs
from pytest_gpufabric.signoff.plan import Plan, read_plan
from pytest_gpufabric.signoff.run_files import read_deviations_file
from pytest_gpufabric.signoff.runs import DEVIATIONS_FILE, PLAN_FILE, RESULTS_FILE, run_directory_of
from pytest_gpufabric.signoff.verdict import Verdict, assess

MAX_CHAIN = 100


@dataclass(frozen=True)
class Acceptance:
    """The runs (the acceptance run first, then its retests), their merged records and the verdict; the
    verdict is None for results without a plan (an older release): their coverage cannot be checked."""

    runs: tuple[LoadedRun, ...]
    plan: Plan | None
    records: list[dict[str, Any]]
    retests: list[Retest]
    deviations: tuple[Deviation, ...]
    verdict: Verdict | None
    info: RunInfo
    notes: tuple[str, ...] = ()

    @property
    def report_id(self) -> str:
        base = self.runs[0].info.run_id or self.runs[0].results_file.parent.name
        return f"GFR-{self.info.site}-{base}"

    @property
    def revision(self) -> int:
        """1 for the acceptance run alone, +1 per merged retest."""
        return len(self.runs)

    def digest(self) -> str:
        """SHA-256 over every results file and the deviations in force: two reports with the same digest
        judged the same evidence."""
        digest = hashlib.sha256()
        for run in self.runs:
            digest.update(file_digest(run.results_file).encode())
        for deviation in self.deviations:
            digest.update(repr(sorted(deviation.as_plain().items())).encode())
        return digest.hexdigest()


def run_chain(run_dir: Path) -> list[Path]:
    """A retest's runs from its acceptance run on (``retest_of`` in run.json, within the same results root)."""
    chain = [run_dir]
    while len(chain) < MAX_CHAIN:
        info = load_run(chain[0]).info
        if not info.retest_of:
            break
        base = Path(info.retest_of) if Path(info.retest_of).is_absolute() else chain[0].parent / info.retest_of
        if not (base / RESULTS_FILE).is_file():
            break
        chain.insert(0, base)
    return chain


def _date_of(info: RunInfo) -> dt.date:
    stamp = info.finished or info.started
    try:
        return dt.date.fromisoformat(stamp[:10])
    except ValueError:
        return dt.datetime.now(dt.timezone.utc).date()


def _unique(deviations: Iterable[Deviation]) -> tuple[Deviation, ...]:
    seen: dict[tuple[Any, ...], Deviation] = {}
    for deviation in deviations:
        seen.setdefault((deviation.check, deviation.where, deviation.reason, deviation.approved_by, deviation.date,
                         deviation.expires), deviation)
    return tuple(seen.values())


def load_acceptance(paths: Sequence[Path], extra_deviations: Sequence[Deviation] = ()) -> Acceptance:
    """The acceptance of ``paths`` (the acceptance run, then its retests, in order); a single retest brings
    the runs it retests along."""
    if not paths:
        raise UsageError("no run given")
    run_dirs = [run_directory_of(path) for path in paths]
    if len(run_dirs) == 1:
        run_dirs = run_chain(run_dirs[0])
    runs = tuple(load_run(directory) for directory in run_dirs)
    plan = read_plan(run_dirs[0] / PLAN_FILE)
    notes = []
    for directory, run in zip(run_dirs[1:], runs[1:]):
        other = read_plan(directory / PLAN_FILE)
        if plan is not None and other is not None and other.checks != plan.checks:
            notes.append(f"run {run.info.run_id} was planned on another inventory or profile than the acceptance "
                         "run; the acceptance run's plan decides")
    records, retests = merge_runs((run.info.run_id or run.results_file.parent.name, run.info.started, run.records)
                                  for run in runs)
    deviations = _unique([d for directory in run_dirs for d in read_deviations_file(directory / DEVIATIONS_FILE)]
                         + list(extra_deviations))
    last = runs[-1].info
    info = replace(runs[0].info, finished=last.finished, interrupted=last.interrupted)
    incomplete = (f"the run was interrupted ({len(runs[-1].records)} items recorded)" if last.interrupted else
                  f"the run did not finish ({len(runs[-1].records)} items recorded)")
    verdict = None if plan is None else assess(plan, records, deviations, _date_of(last), last.complete, incomplete)
    return Acceptance(runs, plan, records, retests, deviations, verdict, info, tuple(notes))
