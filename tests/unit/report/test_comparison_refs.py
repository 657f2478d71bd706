"""Which results file a run reference names (a file, a directory, a run id or its start), and tolerances."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.reporting.acceptance.comparison import parse_tolerance, resolve_results
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, write_run_info


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    (tmp_path / "results.jsonl").write_text("", encoding="utf-8")
    write_run_info(tmp_path, RunInfo(run_id="7f2c0a9b1d3e"))
    (tmp_path / "results").mkdir()
    for run_id in ("2026-11-20T09-14-03-aaaa", "2026-11-21T10-00-00-bbbb"):
        (tmp_path / "results" / f"{run_id}.jsonl").write_text("", encoding="utf-8")
    return tmp_path


def test_files_and_directories_name_themselves(results_dir: Path) -> None:
    assert resolve_results(str(results_dir), results_dir) == results_dir / "results.jsonl"
    assert resolve_results(str(results_dir / "results.jsonl"), Path("elsewhere")) == results_dir / "results.jsonl"


def test_run_ids_and_their_unique_starts(results_dir: Path) -> None:
    assert resolve_results("2026-11-21T10-00-00-bbbb", results_dir) == results_dir / "results" / "2026-11-21T10-00-00-bbbb.jsonl"
    assert resolve_results("2026-11-20", results_dir) == results_dir / "results" / "2026-11-20T09-14-03-aaaa.jsonl"
    assert resolve_results("7f2c", results_dir) == results_dir / "results.jsonl"  # the run of run.json


def test_unknown_or_ambiguous_runs_are_one_line_errors(results_dir: Path) -> None:
    with pytest.raises(UsageError, match="ambiguous") as ambiguous:
        resolve_results("2026-11", results_dir)
    with pytest.raises(UsageError, match="no results for 'nope'") as unknown:
        resolve_results("nope", results_dir)
    assert "\n" not in str(ambiguous.value) + str(unknown.value)


@pytest.mark.parametrize(("text", "value"), [("5%", 0.05), ("0.05", 0.05), ("12.5%", 0.125)])
def test_tolerances(text: str, value: float) -> None:
    assert parse_tolerance(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["5", "0", "150%", "five", "-5%"])
def test_bad_tolerances_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="expected a relative change such as 5% or 0.05"):
        parse_tolerance(text)
