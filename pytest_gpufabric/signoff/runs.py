"""Where a run's evidence lives: one directory per run under the results root, never touched by another run.

    gpufabric-results/
      20261120-091403-7f2c3a/   results.jsonl (one record per item, appended and flushed as items finish),
                                run.json (site, dates, input hashes, retest_of), plan.json, deviations.json
      latest -> 20261120-091403-7f2c3a
      results.jsonl -> latest/results.jsonl, run.json -> latest/run.json   (links, for tools that read the root)

A run creates its directory when it records its first item: ``--collect-only`` and runs that record nothing
write nothing. A directory that exists is never reused; links are replaced atomically, and a regular file in
their place (the single-file layout of older releases) is left alone.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pytest_gpufabric.errors import UsageError

RESULTS_FILE = "results.jsonl"
RUN_INFO_FILE = "run.json"
PLAN_FILE = "plan.json"
DEVIATIONS_FILE = "deviations.json"
LATEST = "latest"
ROOT_LINKS = (RESULTS_FILE, RUN_INFO_FILE)


def new_run_id(now: datetime | None = None) -> str:
    """``YYYYMMDD-HHMMSS-xxxxxx`` (UTC): run directories sort by start time."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def _replace_link(link: Path, target: str) -> None:
    """Point ``link`` at ``target`` atomically, unless a regular file or directory of another layout is there."""
    if link.exists() and not link.is_symlink():
        return
    temporary = link.with_name(f".{link.name}.{secrets.token_hex(4)}.tmp")
    os.symlink(target, temporary)
    os.replace(temporary, link)


@dataclass(frozen=True)
class RunDirectory:
    """The directory of one run under ``root``."""

    root: Path
    run_id: str

    @property
    def path(self) -> Path:
        return self.root / self.run_id

    @property
    def results_file(self) -> Path:
        return self.path / RESULTS_FILE

    def create(self) -> Path:
        """Create the run's directory (it must not exist) and point ``latest`` and the root links at it."""
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            self.path.mkdir()
        except FileExistsError:
            raise UsageError(f"{self.path} exists already: a run never writes into another run's results") from None
        _replace_link(self.root / LATEST, self.run_id)
        for name in ROOT_LINKS:
            _replace_link(self.root / name, f"{LATEST}/{name}")
        return self.path


def latest_run(root: Path) -> Path | None:
    """The run ``latest`` points at under a results root, or None."""
    link = root / LATEST
    return link.resolve() if link.is_dir() else None


def run_directory_of(path: Path) -> Path:
    """The run directory meant by ``path``: a results file, a run directory, a results root (its latest run, or
    an older single-file layout), or a run id under the current directory's ``gpufabric-results``."""
    if path.is_file():
        return path.parent
    if (path / RESULTS_FILE).is_file():
        return (path / RESULTS_FILE).resolve().parent
    latest = latest_run(path) if path.is_dir() else None
    if latest is not None:
        return latest
    raise UsageError(f"no results at {path} (give a run directory, its results.jsonl, or a results root holding 'latest')")


def resolve_run(text: str, root: Path) -> Path:
    """A run named on the command line: a path, or a run id under ``root``."""
    path = Path(text)
    if not path.exists() and (root / text).is_dir():
        path = root / text
    return run_directory_of(path)
