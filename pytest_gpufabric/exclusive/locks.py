"""One lock per exclusive resource (a NIC, a GPU, a perftest port), taken in one global order so that tests never
deadlock.

Every test that needs resources takes all of their locks, in one order (by slot, below), before it starts, and
frees them when it ends. Since every process orders them the same way, no two processes can each hold a lock the
other waits for. A test that cannot get a lock within the timeout fails with the name of the resource and, when
known, the test that holds it.

The locks of every resource live in one file of the lock folder (``resources.lock``): a resource is a slot of
``SLOT_BYTES`` bytes at an offset derived from its name, locked with an open-file-description record lock (Linux
``F_OFD_SETLK``: it belongs to the descriptor of one ``ResourceLocks``, not to the process, so two of them exclude
each other even in one process, and closing one releases only its own) and holding the holder's name while it is
held. Threads sharing one ``ResourceLocks`` exclude each other with a lock of their own per slot first. So a
process needs one file descriptor for all its locks: a 1,024-node x 8-rail round holds about 25,000 locks at once, more than the
descriptors a process may open (one lock file each, as before, failed there with "Too many open files"); a lock
costs two system calls and a release two.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import struct
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pytest_gpufabric.errors import GpufabricError

UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")
POLL_S = 0.05  # how often a busy lock is tried again
LOCK_FILE = "resources.lock"
SLOT_BYTES = 128  # a slot holds its holder's name
SLOTS = 1 << 31  # slots of the (sparse) lock file: 256 GiB of offsets, a few MB written


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


def _record(kind: int, slot: int) -> bytes:
    """A ``struct flock`` for ``slot``'s bytes (l_type, l_whence, l_start, l_len, l_pid 0 as OFD locks require)."""
    return struct.pack("@hhqqi4x", kind, os.SEEK_SET, slot * SLOT_BYTES, SLOT_BYTES, 0)


def slot_of(resource: str) -> int:
    """The slot of ``resource`` in the lock file (two names sharing one are locked together: never unsafe)."""
    return int.from_bytes(hashlib.sha256(resource.encode("utf-8")).digest()[:8], "big") % SLOTS


class ResourceLocks:
    """Exclusive locks on named resources, shared by every process that uses the same ``lock_dir``."""

    def __init__(self, lock_dir: os.PathLike[str] | str, timeout_s: float, poll_s: float = POLL_S) -> None:
        if timeout_s <= 0:
            raise ValueError(f"lock timeout must be positive, got {timeout_s}")
        self.lock_dir = Path(lock_dir)
        self.timeout_s = timeout_s
        self.poll_s = poll_s
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.lock_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._threads: dict[int, threading.Lock] = {}  # slot -> the lock the threads of this process take first
        self._threads_guard = threading.Lock()

    def close(self) -> None:
        """Give the lock file's descriptor back (every lock still held through it with it)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _holder(self, slot: int) -> str | None:
        text = os.pread(self._fd, SLOT_BYTES, slot * SLOT_BYTES).split(b"\0", 1)[0]
        return text.decode("utf-8", errors="replace").strip() or None

    def _thread_lock(self, slot: int) -> threading.Lock:
        with self._threads_guard:
            return self._threads.setdefault(slot, threading.Lock())

    def _take(self, slot: int, deadline: float) -> bool:
        """The slot's lock among this object's threads first, then its record lock; False at ``deadline``."""
        local = self._thread_lock(slot)
        if not local.acquire(timeout=max(0.0, deadline - time.monotonic())):
            return False
        try:
            while True:
                try:
                    fcntl.fcntl(self._fd, fcntl.F_OFD_SETLK, _record(fcntl.F_WRLCK, slot))
                    return True
                except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: another holder has it
                    left = deadline - time.monotonic()
                    if left <= 0:
                        local.release()
                        return False
                    time.sleep(min(self.poll_s, left))
        except BaseException:
            local.release()
            raise

    def _give_back(self, slot: int) -> None:
        """Clear the holder's name, release the record lock, then the threads' lock of the slot."""
        try:
            os.pwrite(self._fd, bytes(SLOT_BYTES), slot * SLOT_BYTES)
        finally:
            try:
                fcntl.fcntl(self._fd, fcntl.F_OFD_SETLK, _record(fcntl.F_UNLCK, slot))
            finally:
                self._threads[slot].release()

    @contextmanager
    def hold(self, resources: Iterable[str], owner: str = "") -> Iterator[tuple[str, ...]]:
        """Hold every lock of ``resources`` (in slot order) for the ``with`` body; yields the names, sorted.

        Raises ResourceLockTimeout, with every lock taken so far released, when the resources are not all
        free within the timeout (one deadline for all of them).
        """
        names = tuple(sorted(set(resources)))
        slots: dict[int, str] = {}
        for name in names:
            slots.setdefault(slot_of(name), name)
        deadline = time.monotonic() + self.timeout_s
        holder = f"{owner or 'unnamed'} (pid {os.getpid()})".encode()[: SLOT_BYTES - 1].ljust(SLOT_BYTES, b"\0")
        taken: list[int] = []
        try:
            for slot in sorted(slots):
                if not self._take(slot, deadline):
                    raise ResourceLockTimeout(slots[slot], self.timeout_s, self._holder(slot))
                taken.append(slot)
                os.pwrite(self._fd, holder, slot * SLOT_BYTES)
            yield names
        finally:
            for slot in reversed(taken):
                self._give_back(slot)
