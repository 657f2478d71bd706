"""Hashes of what a run's verdict depends on: site.yaml, the profile files, the recording and the plugin's
version. They go on the cover, so a reader can tell whether two reports judged the same inputs."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

CHUNK = 1 << 20


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def files_digest(paths: Iterable[Path], base: Path) -> str:
    """One SHA-256 over several files: each file's path (relative to ``base``) and content, in path order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(base)).encode() + b"\0" + file_digest(path).encode() + b"\n")
    return digest.hexdigest()


def profile_files(thresholds_dir: Path, names: Iterable[str]) -> list[Path]:
    files = []
    for name in sorted(set(names)):
        files.append(thresholds_dir / f"{name}.yaml")
        files.extend(sorted((thresholds_dir / f"{name}.d").glob("*.yaml")))
    return [path for path in files if path.is_file()]


def recording_digest(recording: Path) -> str | None:
    """The recording's marker file and node files (lock files left out); None when there is none."""
    if not (recording / "recording.yaml").is_file():
        return None
    files = [recording / "recording.yaml", *sorted((recording / "nodes").glob("*.yaml"))]
    return files_digest([path for path in files if not path.name.startswith(".")], recording)


def input_hashes(cluster: Path, thresholds_dir: Path, profiles: Iterable[str], version: str) -> dict[str, str]:
    """``{"site.yaml": sha256, "profiles": sha256, "plugin": version}`` (the recording is hashed at the end)."""
    files = profile_files(thresholds_dir, profiles)
    return {"site.yaml": file_digest(cluster), "profiles": files_digest(files, thresholds_dir) if files else "none",
            "plugin": f"pytest-gpufabric {version}"}
