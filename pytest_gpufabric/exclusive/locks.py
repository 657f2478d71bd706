"""One file lock per exclusive resource (a NIC, a GPU), taken in one global order so that tests never deadlock.

Every test that needs resources takes all of their locks, sorted by name, before it starts, and frees them
when it ends. Since every process sorts the same way, no two processes can each hold a lock the other
waits for. A test that cannot get a lock within the timeout fails with the name of the resource and, when
known, the test that holds it.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from pytest_gpufabric.errors import GpufabricError

UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


class ResourceLockTimeout(GpufabricError):
    """A resource stayed busy longer than the lock timeout."""

    def __init__(self, resource: str, timeout_s: float, holder: str | None) -> None:
        held = f" (held by {holder})" if holder else ""
        super().__init__(f"resource {resource!r} still in use after {timeout_s:g} s{held}")
        self.resource = resource
        self.timeout_s = timeout_s
        self.holder = holder


def lock_file_name(resource: str) -> str:
    """A file name for ``resource`` that is safe on any file system and unique per resource name."""
    digest = hashlib.sha256(resource.encode("utf-8")).hexdigest()[:12]
    return f"{UNSAFE_CHARS.sub('_', resource)[:80]}-{digest}.lock"


class ResourceLocks:
    """Exclusive locks on named resources, shared by every process that uses the same ``lock_dir``."""

    def __init__(self, lock_dir: os.PathLike[str] | str, timeout_s: float) -> None:
        if timeout_s <= 0:
            raise ValueError(f"lock timeout must be positive, got {timeout_s}")
        self.lock_dir = Path(lock_dir)
        self.timeout_s = timeout_s
        self.lock_dir.mkdir(parents=True, exist_ok=True)

    def _paths(self, resource: str) -> tuple[Path, Path]:
        lock = self.lock_dir / lock_file_name(resource)
        return lock, lock.with_suffix(".holder")

    def _holder(self, resource: str) -> str | None:
        try:
            return self._paths(resource)[1].read_text(encoding="utf-8").strip() or None
        except OSError:
            return None

    @contextmanager
    def hold(self, resources: Iterable[str], owner: str = "") -> Iterator[tuple[str, ...]]:
        """Hold every lock of ``resources`` (in sorted order) for the ``with`` body; yields the sorted names.

        Raises ResourceLockTimeout, with every lock taken so far released, when the resources are not all
        free within the timeout (one deadline for all of them).
        """
        names = tuple(sorted(set(resources)))
        deadline = time.monotonic() + self.timeout_s
        taken: list[tuple[FileLock, Path]] = []
        try:
            for name in names:
                lock_path, holder_path = self._paths(name)
                lock = FileLock(str(lock_path))
                try:
                    lock.acquire(timeout=max(0.0, deadline - time.monotonic()))
                except Timeout:
                    raise ResourceLockTimeout(name, self.timeout_s, self._holder(name)) from None
                taken.append((lock, holder_path))
                holder_path.write_text(f"{owner or 'unnamed'} (pid {os.getpid()})\n", encoding="utf-8")
            yield names
        finally:
            for lock, holder_path in reversed(taken):
                try:
                    holder_path.unlink()
                except OSError:
                    pass
                lock.release()
