"""A run's own files, written by the controller: its directory when the first item is recorded (run.json,
plan.json, deviations.json, then results.jsonl), and run.json again when the run ends."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from pytest_gpufabric.reporting.acceptance.load import cycle_collector_paused
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo
from pytest_gpufabric.signoff.deviations import Deviation
from pytest_gpufabric.signoff.inputs import recording_digest
from pytest_gpufabric.signoff.plan import Plan, read_plan, write_plan
from pytest_gpufabric.signoff.runs import DEVIATIONS_FILE, PLAN_FILE, RUN_INFO_FILE, RunDirectory


def write_json(path: Path, text: str) -> None:
    """Write a small JSON file atomically (a report may read it while the run goes on)."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text + "\n", encoding="utf-8")
    os.replace(temporary, path)


def write_deviations(path: Path, deviations: tuple[Deviation, ...]) -> None:
    write_json(path, json.dumps({"deviations": [d.as_plain() for d in deviations]}, indent=1, sort_keys=True))


def read_deviations_file(path: Path) -> tuple[Deviation, ...]:
    if not path.is_file():
        return ()
    try:
        return tuple(Deviation.from_plain(d) for d in json.loads(path.read_text(encoding="utf-8"))["deviations"])
    except (ValueError, KeyError, TypeError):
        return ()


@dataclass
class RunFiles:
    """The evidence of one run: nothing is written until ``start`` (the first record)."""

    directory: RunDirectory
    info: RunInfo
    plan: Callable[[], Plan]
    deviations: tuple[Deviation, ...]
    inputs: Callable[[], dict[str, str]]
    recording: Path | None = None
    started: bool = False

    def planned(self) -> Plan:
        """The plan: as written at the start of the run (read back), or built when nothing was written."""
        return read_plan(self.directory.path / PLAN_FILE) if self.started else self.plan()

    def start(self) -> None:
        """Write the run's files. The plan (millions of items at 1,024 nodes, none in a reference cycle) is built and
        written with the cycle collector paused, and not kept: it is freed as soon as it is written."""
        path = self.directory.create()
        self.info = replace(self.info, inputs=self.inputs())
        write_json(path / RUN_INFO_FILE, self.info.to_json())
        with cycle_collector_paused():
            write_plan(self.plan(), path / PLAN_FILE)
        write_deviations(path / DEVIATIONS_FILE, self.deviations)
        self.started = True

    def finish(self, *, interrupted: bool) -> None:
        """The end of the run (also after Ctrl-C): dates, and the recording's hash as it is now."""
        if not self.started:
            return
        self.info = self.info.finished_now(interrupted=interrupted)
        digest = recording_digest(self.recording) if self.recording is not None else None
        if digest is not None:
            self.info = replace(self.info, inputs={**self.info.inputs, "recording": digest})
        write_json(self.directory.path / RUN_INFO_FILE, self.info.to_json())
