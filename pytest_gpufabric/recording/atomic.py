"""Atomic replacement of a file: readers and interrupted writers never see a partial file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def temp_prefix(path: Path) -> str:
    """The name prefix of the temporary files written for ``path`` (hidden, in the same folder)."""
    return f".{path.name}."


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8): a temporary file in the same folder is written,
    flushed to disk and renamed over ``path``, so ``path`` holds either the old or the new text."""
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path), suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    _sync_folder(path.parent)


def remove_stale_temp_files(path: Path) -> None:
    """Delete temporary files left for ``path`` by a writer that was killed before its rename.
    Call only while holding the lock that serializes the writers of ``path``."""
    for leftover in path.parent.glob(f"{temp_prefix(path)}*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            leftover.unlink()


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every platform can open a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
