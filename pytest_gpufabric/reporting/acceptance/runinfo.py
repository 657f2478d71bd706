"""``run.json`` beside ``results.jsonl``: what the report's cover names (site, profiles and their documents,
run id, plugin version, dates) and each NIC's rail, written by the controller when a run starts and ends."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

RUN_INFO_FILE = "run.json"


@dataclass(frozen=True)
class ProfileInfo:
    """A thresholds profile as the cover shows it, and the checks it requires (those it holds expectations
    for and does not declare not applicable): the scope of the verdict."""

    name: str
    title: str
    documents: dict[str, str]
    checks: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunInfo:
    """Plain data about one run; every field has a default so a results file alone still gives a report."""

    site: str = "unknown site"
    profile: str = "unknown profile"
    profiles: tuple[ProfileInfo, ...] = ()
    run_id: str = ""
    plugin_version: str = ""
    started: str = ""
    finished: str = ""
    mode: str = ""
    inventory: str = ""
    rails: dict[str, int] = field(default_factory=dict)  # "node/nic" -> rail
    interrupted: bool = False
    retest_of: str = ""  # the run id this run retests (--lf, --rerun-failed-pairs, --retest-of)
    retest_reason: str = ""
    inputs: dict[str, str] = field(default_factory=dict)  # what the verdict depends on -> SHA-256 (or version)

    def finished_now(self, *, interrupted: bool = False) -> RunInfo:
        return replace(self, finished=now_text(), interrupted=interrupted)

    @property
    def required_checks(self) -> frozenset[str] | None:
        """The checks the run's profiles require; None when run.json does not say (then every item counts)."""
        checks = frozenset(check for p in self.profiles for check in p.checks)
        return checks or None

    @property
    def complete(self) -> bool:
        """The run finished by itself: an interrupted run, or one started that has not finished (still going,
        or killed), is not complete; without run information the results file is all there is."""
        return not self.interrupted and (bool(self.finished) or not self.started)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> RunInfo:
        profiles = tuple(ProfileInfo(str(p["name"]), str(p.get("title", "")), dict(p.get("documents", {})),
                                     tuple(str(c) for c in p.get("checks", ())))
                         for p in data.get("profiles", []))
        known = {name: data[name] for name in ("site", "profile", "run_id", "plugin_version", "started", "finished",
                                                 "mode", "inventory", "retest_of", "retest_reason")
                 if data.get(name) is not None}
        rails = {str(nic): int(rail) for nic, rail in dict(data.get("rails", {})).items()}
        inputs = {str(k): str(v) for k, v in dict(data.get("inputs", {})).items()}
        return cls(profiles=profiles, rails=rails, interrupted=data.get("interrupted") is True, inputs=inputs,
                   **{k: str(v) for k, v in known.items()})


def now_text() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def write_run_info(directory: Path, info: RunInfo) -> Path:
    """Write ``run.json`` atomically (the report may read it while a run goes on)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / RUN_INFO_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(info.to_json() + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_run_info(directory: Path) -> RunInfo | None:
    """The run information of a results directory; None when it has none (an older results file)."""
    path = directory / RUN_INFO_FILE
    if not path.is_file():
        return None
    try:
        return RunInfo.from_plain(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError):
        return None
