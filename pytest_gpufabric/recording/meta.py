"""``recording.yaml``: what marks a folder as a recording, and which format version it uses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from filelock import FileLock, Timeout

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.recording.atomic import write_atomically
from pytest_gpufabric.recording.yamltext import dump_yaml, load_yaml

FORMAT = "gpufabric-recording"
VERSION = 1
INTEGRITY = "sha256"  # every node file of a recording that says so ends with its integrity line (``integrity``)
META_FILE = "recording.yaml"
NODES_DIR = "nodes"
LOCKS_DIR = ".locks"
DEFAULT_LOCK_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RecordingMeta:
    """The content of ``recording.yaml``. ``created_by_run`` is the run id of the run that created
    the recording (record mode ``once`` records, rather than replays, in that run only). ``integrity``: every node
    file ends with its integrity line (``recording.integrity``); None in recordings made before it."""

    format: str
    version: int
    description: str | None = None
    created_by_run: str | None = None
    integrity: str | None = None


class RecordingMetaError(UsageError):
    """The folder is not a recording this version can read; ``reason`` is the one-line cause."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def meta_path(directory: Path | str) -> Path:
    return Path(directory) / META_FILE


def recording_exists(directory: Path | str) -> bool:
    return meta_path(directory).is_file()


def load_recording_meta(directory: Path | str) -> RecordingMeta:
    """Read and check ``<directory>/recording.yaml``; ``RecordingMetaError`` if it is missing,
    unreadable, of another format, or of a version this release does not read."""
    path = meta_path(directory)
    if not path.is_file():
        raise RecordingMetaError(f"no recording at {Path(directory)} (expected {META_FILE})")
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise RecordingMetaError(f"cannot read {path}: invalid YAML{where}: {getattr(exc, 'problem', None) or _first_line(exc)}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingMetaError(f"cannot read {path}: {_first_line(exc)}") from None
    return _parse_meta(data, path)


def create_recording(directory: Path | str, description: str | None = None, *, run_id: str | None = None) -> RecordingMeta:
    """Make ``directory`` a recording (``recording.yaml`` and ``nodes/``) unless it is one already;
    an existing recording is checked and left as it is. Safe when several processes call it at once."""
    folder = Path(directory)
    (folder / NODES_DIR).mkdir(parents=True, exist_ok=True)
    (folder / LOCKS_DIR).mkdir(exist_ok=True)
    lock_path = folder / LOCKS_DIR / f"{META_FILE}.lock"
    try:
        with FileLock(lock_path, timeout=DEFAULT_LOCK_TIMEOUT_S):
            if recording_exists(folder):
                return load_recording_meta(folder)
            meta = RecordingMeta(FORMAT, VERSION, description, run_id, INTEGRITY)
            write_atomically(meta_path(folder), dump_yaml(_meta_data(meta)))
            return meta
    except Timeout:
        raise RecordingMetaError(f"timed out waiting for lock {lock_path}") from None


def _meta_data(meta: RecordingMeta) -> dict[str, Any]:
    data: dict[str, Any] = {"format": meta.format, "version": meta.version}
    if meta.description is not None:
        data["description"] = meta.description
    if meta.created_by_run is not None:
        data["created_by_run"] = meta.created_by_run
    if meta.integrity is not None:
        data["integrity"] = meta.integrity
    return data


def mark_sealed(directory: Path | str) -> RecordingMeta:
    """Declare in ``recording.yaml`` that every node file ends with its integrity line (``gpufabric recording
    seal``, once it has sealed them)."""
    meta = load_recording_meta(directory)
    sealed = RecordingMeta(meta.format, meta.version, meta.description, meta.created_by_run, INTEGRITY)
    write_atomically(meta_path(directory), dump_yaml(_meta_data(sealed)))
    return sealed


def _parse_meta(data: Any, path: Path) -> RecordingMeta:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise RecordingMetaError(f"{path} is not a gpufabric recording (format: {found!r}, expected {FORMAT!r})")
    version = data.get("version")
    if version != VERSION or isinstance(version, bool):
        raise RecordingMetaError(f"{path} has recording format version {version!r}; this release reads version {VERSION} only")
    description, created_by_run = data.get("description"), data.get("created_by_run")
    for key, value in (("description", description), ("created_by_run", created_by_run)):
        if value is not None and not isinstance(value, str):
            raise RecordingMetaError(f"{path}: {key} must be text, found {value!r}")
    integrity = data.get("integrity")
    if integrity is not None and integrity != INTEGRITY:
        raise RecordingMetaError(f"{path}: integrity is {integrity!r}; this release reads {INTEGRITY!r}")
    return RecordingMeta(FORMAT, VERSION, description, created_by_run, integrity)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
