"""Read a results file (or the directory holding it) and its run information."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, read_run_info

RESULTS_FILE = "results.jsonl"
RUN_SUMMARY_KIND = "run_summary"  # the last line of a finished run's results.jsonl (fleet statistics, outliers)


@dataclass(frozen=True)
class LoadedRun:
    """The records of one run, its run information and where they came from."""

    results_file: Path
    records: list[dict[str, Any]]
    info: RunInfo
    cut_off_last_line: bool = False  # a run stopped while writing its last record
    summary: dict[str, Any] | None = None  # the run summary line (fleet statistics, outliers), when written


@contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """The records of a large run are millions of small containers without reference cycles; the cycle
    collector would walk all of them again and again while they are read or written (half the time of a
    report at 256 nodes). Collection resumes (where it was on) when the block ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def results_file_of(path: Path) -> Path:
    """``path`` itself when it is a file, else ``path/results.jsonl``; a one-line error when neither exists."""
    candidate = path / RESULTS_FILE if path.is_dir() else path
    if not candidate.is_file():
        raise UsageError(f"no results file at {candidate} (give a results.jsonl or the directory holding it)")
    return candidate


def _parse(line: bytes) -> Any:
    """One JSON line: orjson (fast), else the standard parser, which also reads the NaN/Infinity that
    ``json.dumps`` writes for such floats."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


Keep = Callable[[dict[str, Any]], dict[str, Any]]  # what to keep of each record as it is read


def read_records(results_file: Path, keep: Keep | None = None,
                 summary: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], bool]:
    """The records of a results file, and whether its last line was cut off (a run killed while writing it:
    that line is left out); any other line that is not a JSON object is a one-line error naming it. ``keep``
    sees each record as it is read and returns what is kept of it; the run summary line goes to ``summary``."""
    records = []
    with results_file.open("rb") as stream:
        for number, line in enumerate(stream, 1):
            if not line or line.isspace():
                continue
            try:
                record = _parse(line)
            except ValueError as exc:
                if not line.endswith(b"\n") and not stream.read(1):
                    return records, True
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise UsageError(f"{results_file}:{number}: not a JSON line ({reason})") from None
            if isinstance(record, dict) and record.get("kind") == RUN_SUMMARY_KIND:
                if summary is not None:
                    summary.append(record)
                continue
            if not isinstance(record, dict) or "outcome" not in record:
                raise UsageError(f"{results_file}:{number}: not a results record (no 'outcome')")
            records.append(record if keep is None else keep(record))
    return records, False


def load_run(path: Path, keep: Keep | None = None) -> LoadedRun:
    """Records and run information of the results at ``path`` (file or directory); ``keep`` as for ``read_records``."""
    results_file = results_file_of(path)
    info = read_run_info(results_file.parent) or RunInfo()
    summaries: list[dict[str, Any]] = []
    records, cut_off = read_records(results_file, keep, summaries)
    return LoadedRun(results_file=results_file, records=records, info=info, cut_off_last_line=cut_off,
                     summary=summaries[-1] if summaries else None)
