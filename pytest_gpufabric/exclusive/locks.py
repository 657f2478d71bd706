"""One file lock per exclusive resource (a NIC, a GPU, a port), taken all at once or not at all.

Every test that needs resources takes all of their locks before it starts, and frees them when it ends. It
never holds a lock while it waits: when one of its resources is busy it frees what it took, pauses (10 ms,
doubling up to 200 ms) and tries again, so a test stuck behind one busy NIC keeps no other NIC from the tests
that could run. A test that cannot get all of its locks within the timeout fails with the name of the busy
resource and, when known, the test and run that hold it.
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
FIRST_PAUSE_S = 0.01  # first pause of a test whose resources are not all free (doubling)
LAST_PAUSE_S = 0.2


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
    """Exclusive locks on named resources, shared by every process that uses the same ``lock_dir``.

    ``identity`` names this run to the holders' files (its id, its controller's host and PID), so that a second
    run on the same lock folder is told which run holds a resource."""

    def __init__(self, lock_dir: os.PathLike[str] | str, timeout_s: float, identity: str = "") -> None:
        if timeout_s <= 0:
            raise ValueError(f"lock timeout must be positive, got {timeout_s}")
        self.lock_dir = Path(lock_dir)
        self.timeout_s = timeout_s
        self.identity = identity
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
        """Hold every lock of ``resources`` for the ``with`` body; yields the sorted names.

        Raises ResourceLockTimeout, holding nothing, when the resources are not all free at once within the
        timeout (one deadline for all of them)."""
        names = tuple(sorted(set(resources)))
        deadline = time.monotonic() + self.timeout_s
        pause = FIRST_PAUSE_S
        holder = f"{owner or 'unnamed'}{f' [{self.identity}]' if self.identity else ''} (pid {os.getpid()})\n"
        while True:
            taken, busy = self._take_all(names, holder)
            if busy is None:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                raise ResourceLockTimeout(busy, self.timeout_s, self._holder(busy))
            time.sleep(min(pause, left))
            pause = min(2 * pause, LAST_PAUSE_S)
        try:
            yield names
        finally:
            self._release(taken)

    def _take_all(self, names: tuple[str, ...], holder: str) -> tuple[list[tuple[FileLock, Path]], str | None]:
        """Every lock of ``names`` without waiting: (the locks, None), or (nothing, the first busy name)."""
        taken: list[tuple[FileLock, Path]] = []
        for name in names:
            lock_path, holder_path = self._paths(name)
            lock = FileLock(str(lock_path))
            try:
                lock.acquire(blocking=False)
            except Timeout:
                self._release(taken)
                return [], name
            taken.append((lock, holder_path))
            holder_path.write_text(holder, encoding="utf-8")
        return taken, None

    @staticmethod
    def _release(taken: list[tuple[FileLock, Path]]) -> None:
        for lock, holder_path in reversed(taken):
            try:
                holder_path.unlink()
            except OSError:
                pass
            lock.release()
