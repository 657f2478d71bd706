"""What the controller of a run prepares for its evidence: the run's directory (not created yet), its run
information with the run it retests, the deviations in force and the plan (built when first needed)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_gpufabric import __version__
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.inventory.signoff_sections import deviations_file_problems
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo
from pytest_gpufabric.signoff.deviations import Deviation
from pytest_gpufabric.signoff.inputs import input_hashes
from pytest_gpufabric.signoff.plan import build_plan, site_pair_policy
from pytest_gpufabric.signoff.run_files import RunFiles
from pytest_gpufabric.signoff.runs import RESULTS_FILE, RunDirectory, latest_run, resolve_run, run_directory_of

if TYPE_CHECKING:
    from pytest_gpufabric.options import FabricOptions
    from pytest_gpufabric.startup import RunSetup


def load_deviations(path: Path | None, known_checks: frozenset[str]) -> tuple[Deviation, ...]:
    """The deviations of a ``--deviations FILE``; every problem of the file in one UsageError."""
    if path is None:
        return ()
    problems, deviations = deviations_file_problems(path, known_checks)
    if problems:
        raise UsageError("--deviations: " + "; ".join(problems))
    return deviations


def retest_base(results_root: Path, retest_of: str | None, rerun_file: str | None, last_failed: bool) -> tuple[str, str]:
    """(the run this run retests, why) or ("", ""): ``--retest-of``, else the run of ``--rerun-failed-pairs``,
    else with ``--lf`` the latest run under the results root. A run of another root is named by its path."""
    if retest_of:
        base, why = resolve_run(retest_of, results_root), "--retest-of"
    elif rerun_file:
        base, why = run_directory_of(Path(rerun_file)), "--rerun-failed-pairs"
    elif last_failed and latest_run(results_root) is not None:
        base, why = latest_run(results_root), "--lf"
    else:
        return "", ""
    assert base is not None
    if not (base / RESULTS_FILE).is_file():
        return "", ""  # a results file copied elsewhere: no run to merge with
    same_root = base.parent.resolve() == results_root.resolve()
    return (base.name if same_root else str(base.resolve())), why


def run_files(setup: RunSetup, options: FabricOptions, info: RunInfo, retest: tuple[str, str]) -> RunFiles:
    """The run's files (written from the first record on) with the site's and ``--deviations`` deviations."""
    catalog_ids = frozenset(spec.id for spec in setup.catalog)
    deviations = (*setup.inventory.deviations, *load_deviations(options.deviations_file, catalog_ids))
    assert options.cluster is not None
    cluster = options.cluster
    policy = site_pair_policy(setup.inventory, cluster)
    names = sorted(setup.profiles)
    return RunFiles(
        directory=RunDirectory(options.results_dir, info.run_id),
        info=replace(info, retest_of=retest[0], retest_reason=retest[1]),
        plan=lambda: build_plan(setup.inventory, setup.profiles, setup.catalog, policy),
        deviations=deviations,
        inputs=lambda: input_hashes(cluster, options.thresholds_dir, names, __version__),
        recording=options.recording_dir,
    )
