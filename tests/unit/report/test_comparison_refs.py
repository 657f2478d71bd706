"""Which results file a run reference names (a file, a run directory, a results root, latest, a run id or its
start), and tolerances."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.reporting.acceptance.comparison import parse_tolerance, resolve_results
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, write_run_info
from pytest_gpufabric.signoff.runs import RunDirectory

RUN_IDS = ("20261120-091403-7f2c3a", "20261121-100000-aa0b1c")


@pytest.fixture
def results_root(tmp_path: Path) -> Path:
    """Two runs as a run writes them (``signoff.runs``), the second the latest."""
    root = tmp_path / "gpufabric-results"
    for run_id in RUN_IDS:
        directory = RunDirectory(root, run_id).create()
        (directory / "results.jsonl").write_text("", encoding="utf-8")
        write_run_info(directory, RunInfo(run_id=run_id))
    return root


def test_files_and_directories_name_themselves(results_root: Path) -> None:
    first = results_root / RUN_IDS[0] / "results.jsonl"
    assert resolve_results(str(first), Path("elsewhere")) == first.resolve()
    assert resolve_results(str(first.parent), Path("elsewhere")) == first.resolve()
    copied = results_root.parent / "baseline.jsonl"
    copied.write_text("", encoding="utf-8")
    assert resolve_results(str(copied), results_root) == copied.resolve()


def test_a_results_root_and_latest_name_the_latest_run_for_good(results_root: Path) -> None:
    latest = (results_root / RUN_IDS[1] / "results.jsonl").resolve()
    assert resolve_results(str(results_root), Path("elsewhere")) == latest
    assert resolve_results("latest", results_root) == latest
    newer = RunDirectory(results_root, "20261122-080000-ffffff").create()  # a new run starts: the baseline stays put
    (newer / "results.jsonl").write_text("", encoding="utf-8")
    assert latest.exists() and resolve_results("latest", results_root) == (newer / "results.jsonl").resolve()


def test_run_ids_and_their_unique_starts(results_root: Path) -> None:
    assert resolve_results(RUN_IDS[1], results_root) == (results_root / RUN_IDS[1] / "results.jsonl").resolve()
    assert resolve_results("20261120", results_root) == (results_root / RUN_IDS[0] / "results.jsonl").resolve()


def test_unknown_or_ambiguous_runs_are_one_line_errors(results_root: Path) -> None:
    with pytest.raises(UsageError, match="ambiguous") as ambiguous:
        resolve_results("202611", results_root)
    with pytest.raises(UsageError, match="no results for 'nope'") as unknown:
        resolve_results("nope", results_root)
    with pytest.raises(UsageError, match="no results") as missing_root:
        resolve_results("20261120", results_root.parent / "no-such-root")
    assert "\n" not in str(ambiguous.value) + str(unknown.value) + str(missing_root.value)


@pytest.mark.parametrize(("text", "value"), [("5%", 0.05), ("0.05", 0.05), ("12.5%", 0.125)])
def test_tolerances(text: str, value: float) -> None:
    assert parse_tolerance(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["5", "0", "150%", "five", "-5%"])
def test_bad_tolerances_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="expected a relative change such as 5% or 0.05"):
        parse_tolerance(text)
