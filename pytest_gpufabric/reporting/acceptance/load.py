"""Read a results file (or the directory holding it) and its run information."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, read_run_info

RESULTS_FILE = "results.jsonl"


@dataclass(frozen=True)
class LoadedRun:
    """The records of one run, its run information and where they came from."""

    results_file: Path
    records: list[dict[str, Any]]
    info: RunInfo


def results_file_of(path: Path) -> Path:
    """``path`` itself when it is a file, else ``path/results.jsonl``; a one-line error when neither exists."""
    candidate = path / RESULTS_FILE if path.is_dir() else path
    if not candidate.is_file():
        raise UsageError(f"no results file at {candidate} (give a results.jsonl or the directory holding it)")
    return candidate


def read_records(results_file: Path) -> list[dict[str, Any]]:
    """The records of a results file; a line that is not a JSON object is a one-line error naming it."""
    records = []
    with results_file.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise UsageError(f"{results_file}:{number}: not a JSON line ({exc.msg})") from None
            if not isinstance(record, dict) or "outcome" not in record:
                raise UsageError(f"{results_file}:{number}: not a results record (no 'outcome')")
            records.append(record)
    return records


def load_run(path: Path) -> LoadedRun:
    """Records and run information of the results at ``path`` (file or directory)."""
    results_file = results_file_of(path)
    info = read_run_info(results_file.parent) or RunInfo()
    return LoadedRun(results_file=results_file, records=read_records(results_file), info=info)
