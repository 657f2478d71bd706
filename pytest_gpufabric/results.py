"""The machine-readable results file: JSON Lines, one record per test item, written by the controller.

Records are appended (and flushed) as items finish, so an interrupted run keeps what it reported; at the
end of the session the file is rewritten sorted by node id, so two runs of the same replay give
byte-identical files whatever the worker scheduling. Durations are left out for the same reason. The file
is created with the first record (never truncating an existing one): a run that records nothing writes nothing.
An item whose xdist worker crashed is an error ("worker crashed"), never left out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

RESULTS_SCHEMA_VERSION = 1
PROPERTY_KEY = "gpufabric"
CRASHED = "worker crashed"
PHASES = ("setup", "call", "teardown")


def item_record(report: pytest.TestReport, outcome: str, data: dict[str, Any]) -> dict[str, Any]:
    """One results record (plain data) for an item that finished with ``outcome``."""
    failed = [m for m in data.get("measurements", []) if not m["passed"]]
    decisive = failed[0] if failed else (data.get("measurements") or [None])[-1]
    message = data.get("message")
    if message is None and outcome in ("failed", "error"):
        message = _failure_text(report)
    if outcome == "skipped" and isinstance(report.longrepr, tuple):
        message = report.longrepr[2]
    record = {
        "schema": RESULTS_SCHEMA_VERSION,
        "node_id": report.nodeid,
        "check_id": data.get("check_id"),
        "title": data.get("title"),
        "item": data.get("target"),
        "outcome": outcome,
        "measured": decisive["measured"] if decisive else None,
        "expected": decisive["expected"] if decisive else None,
        "unit": decisive["unit"] if decisive else None,
        "source": decisive["source"] if decisive else data.get("check_source"),
        "hint": data.get("hint") if outcome in ("failed", "error") else None,
        "message": message,
        "measurements": data.get("measurements", []),
        "commands": data.get("commands", []),
        "scope": data.get("scope"),
    }
    if outcome == "skipped" and data.get("not_applicable"):
        record["not_applicable"] = True  # skipped by the check itself, for a documented reason
    if data.get("pairs"):
        record["pairs"] = data["pairs"]  # node-pair items: one verdict per NIC pair (see measuring.verdicts)
    for key in ("unread", "notes"):  # lines of the outputs not understood; notes on the outputs (control characters)
        if data.get(key):
            record[key] = data[key]
    return record


def _failure_text(report: pytest.TestReport) -> str | None:
    """The failure message without traceback or captured output (identical with and without xdist)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr or "")
    return text.strip() or None


def gpufabric_data(report: pytest.TestReport) -> dict[str, Any]:
    """The plugin's plain data attached to a report (crosses from xdist workers to the controller)."""
    merged: dict[str, Any] = {}
    for key, value in report.user_properties:
        if key == PROPERTY_KEY and isinstance(value, dict):
            merged.update(value)
    return merged


def param_id(node_id: str) -> str | None:
    """The parameter part of a node id (``...::test_x[node01->node02]`` -> ``node01->node02``), or None."""
    function = node_id.rpartition("::")[2]
    return function[function.index("[") + 1:-1] if "[" in function and function.endswith("]") else None


def crash_record(node_id: str, message: str, data: dict[str, Any], check_id: str | None) -> dict[str, Any]:
    """The record of an item whose xdist worker died while running it: an error, never a silent gap."""
    return {"schema": RESULTS_SCHEMA_VERSION, "node_id": node_id, "check_id": data.get("check_id") or check_id,
            "title": data.get("title"), "item": data.get("target") or param_id(node_id), "outcome": "error",
            "measured": None, "expected": None, "unit": None, "source": data.get("check_source"),
            "hint": None, "message": f"{CRASHED}: {message}", "measurements": [], "commands": [],
            "scope": data.get("scope")}


@dataclass
class ResultsWriter:
    """Collects the three phase reports of each item and writes one record when the item is done.

    ``on_first_record`` runs before the file is created (the run's directory and plan are written then);
    ``check_of`` names the check of a node id, for an item whose worker crashed before reporting it."""

    path: Path
    on_first_record: Callable[[], None] | None = None
    check_of: Callable[[str], str | None] | None = None
    _pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    _records: list[dict[str, Any]] = field(default_factory=list)
    _stream: Any = None

    def add(self, report: pytest.TestReport) -> None:
        state = self._pending.setdefault(report.nodeid, {"outcome": None, "data": {}, "report": report})
        state["data"].update(gpufabric_data(report))
        if report.when not in PHASES:  # xdist: the worker died while running this item
            message = str(report.longrepr or "worker crashed").strip()
            check_id = self.check_of(report.nodeid) if self.check_of else None
            self._write(crash_record(report.nodeid, message, state["data"], check_id))
            del self._pending[report.nodeid]
        elif report.when == "setup" and not report.passed:
            state["outcome"], state["report"] = ("skipped" if report.skipped else "error"), report
        elif report.when == "call":
            state["outcome"], state["report"] = _call_outcome(report, state["data"]), report
        elif report.when == "teardown":
            if report.failed and state["outcome"] in (None, "passed"):
                state["outcome"], state["report"] = "error", report
            self._write(item_record(state["report"], state["outcome"] or "error", state["data"]))
            del self._pending[report.nodeid]

    def _write(self, record: dict[str, Any]) -> None:
        if self._stream is None:
            if self.on_first_record is not None:
                self.on_first_record()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._stream = self.path.open("x", encoding="utf-8")  # never truncates an existing file
        self._records.append(record)
        self._stream.write(json.dumps(record, sort_keys=True, default=str) + "\n")
        self._stream.flush()

    @property
    def started(self) -> bool:
        return self._stream is not None

    def finish(self) -> None:
        """Rewrite the file sorted by node id (atomically); nothing when nothing was recorded."""
        if self._stream is None:
            return
        self._stream.close()
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as out:
            for record in sorted(self._records, key=lambda r: r["node_id"]):
                out.write(json.dumps(record, sort_keys=True, default=str) + "\n")
        os.replace(tmp, self.path)

    @property
    def records(self) -> list[dict[str, Any]]:
        return list(self._records)


def _call_outcome(report: pytest.TestReport, data: dict[str, Any]) -> str:
    if report.passed:
        return "passed"
    if report.skipped:
        return "skipped"
    return "error" if data.get("error_kind") else "failed"


OUTCOME_WORDS = (("failed", "failed"), ("error", "not measured"), ("passed", "passed"), ("skipped", "skipped"))


def outcome_counts_line(records: list[dict[str, Any]]) -> str:
    """``N failed, M not measured, P passed, S skipped``: an item that could not be measured is an error."""
    counts = {outcome: 0 for outcome, _ in OUTCOME_WORDS}
    for record in records:
        counts[record["outcome"]] = counts.get(record["outcome"], 0) + 1
    return ", ".join(f"{counts[outcome]} {word}" for outcome, word in OUTCOME_WORDS)


class ResultsReporter:
    """Registered on the controller (or the only process): feeds finished reports to the writer."""

    def __init__(self, writer: ResultsWriter) -> None:
        self.writer = writer

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.writer.add(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.writer.finish()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        records = self.writer.records
        failing = sorted({r["check_id"] for r in records if r["outcome"] in ("failed", "error") and r["check_id"]})
        terminalreporter.write_sep("-", "gpufabric")
        terminalreporter.write_line(f"{len(records)} items recorded: {outcome_counts_line(records)}")
        terminalreporter.write_line(f"checks with failures or errors: {', '.join(failing) or 'none'}")
        terminalreporter.write_line(f"results: {self.writer.path if self.writer.started else 'nothing recorded, nothing written'}")
