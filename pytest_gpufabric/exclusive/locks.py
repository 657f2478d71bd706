"""One lock per exclusive resource (a NIC, a GPU, a perftest port), taken all at once or not at all.

Every test that needs resources takes all of their locks before it starts, and frees them when it ends. It
never holds a lock while it waits: when one of its resources is busy it frees what it took, pauses (10 ms,
doubling up to 200 ms) and tries again, so a test stuck behind one busy NIC keeps no other NIC from the tests
that could run, and no two tests can deadlock. A test that cannot get all of its locks within the timeout fails
with the name of the busy resource and, when known, the test and run that hold it.

The locks of every resource live in ``SHARDS`` files of the lock folder (``resources-NN.lock``): a resource is a slot
of ``SLOT_BYTES`` bytes at an offset derived from its name, in the file its name's hash gives, locked with an
open-file-description record lock (Linux ``F_OFD_SETLK``: it belongs to the descriptor of one ``ResourceLocks``, not
to the process, so two of them exclude each other even in one process, and closing one releases only its own) and
holding the holder's name while it is held. Threads sharing one ``ResourceLocks`` exclude each other with a lock of
their own per slot first. So a process needs at most ``SHARDS`` file descriptors for all its locks: a 1,024-node x
8-rail round holds about 25,000 locks at once, more than the descriptors a process may open (one lock file each
failed there with "Too many open files"); a lock costs two system calls and a release two.

Why several files: the kernel keeps a file's record locks in one list and walks it on every lock and unlock, so
in one file a lock cost in proportion to every lock held (measured: one job's 48 locks 0.175 ms with none held, 3.0
ms among 5,000 held; 25,000 held at a 1,024 x 8 round cost the controller 14.9 CPU-s, more than its SSH commands).
Spread over ``SHARDS`` files, each list holds 1/``SHARDS`` of them.
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
FIRST_PAUSE_S = 0.01  # first pause of a test whose resources are not all free (doubling)
LAST_PAUSE_S = 0.2
LOCK_FILES = "resources-{shard:02d}.lock"
SHARDS = 64  # lock files: each holds the slots of the resources whose name hashes to it
SLOT_BYTES = 256  # a slot holds its holder's name: the test, and the run (id, controller host and PID)
SLOTS = 1 << 31  # slots of each (sparse) lock file: 512 GiB of offsets, a few MB written


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


Slot = tuple[int, int]  # lock file (shard), slot in it


def slot_of(resource: str) -> Slot:
    """The lock file and slot of ``resource`` (two names sharing one are locked together: never unsafe)."""
    digest = int.from_bytes(hashlib.sha256(resource.encode("utf-8")).digest()[:8], "big")
    return digest % SHARDS, (digest // SHARDS) % SLOTS


class ResourceLocks:
    """Exclusive locks on named resources, shared by every process that uses the same ``lock_dir``.

    ``identity`` names this run in the holders' slots (its id, its controller's host and PID), so that a second
    run on the same lock folder is told which run holds a resource."""

    def __init__(self, lock_dir: os.PathLike[str] | str, timeout_s: float, identity: str = "") -> None:
        if timeout_s <= 0:
            raise ValueError(f"lock timeout must be positive, got {timeout_s}")
        self.lock_dir = Path(lock_dir)
        self.timeout_s = timeout_s
        self.identity = identity
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        self._fds: dict[int, int] = {}  # shard -> the descriptor of its lock file, opened at its first lock
        self._threads: dict[Slot, threading.Lock] = {}  # slot -> the lock the threads of this process take first
        self._threads_guard = threading.Lock()

    def close(self) -> None:
        """Give the lock files' descriptors back (every lock still held through them with them)."""
        with self._threads_guard:
            fds, self._fds = list(self._fds.values()), {}
        for fd in fds:
            os.close(fd)

    def _fd(self, shard: int) -> int:
        fd = self._fds.get(shard)
        if fd is not None:
            return fd
        with self._threads_guard:
            fd = self._fds.get(shard)
            if fd is None:
                path = self.lock_dir / LOCK_FILES.format(shard=shard)
                fd = self._fds[shard] = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            return fd

    def _holder(self, slot: Slot) -> str | None:
        shard, offset = slot
        text = os.pread(self._fd(shard), SLOT_BYTES, offset * SLOT_BYTES).split(b"\0", 1)[0]
        return text.decode("utf-8", errors="replace").strip() or None

    def _thread_lock(self, slot: Slot) -> threading.Lock:
        with self._threads_guard:
            return self._threads.setdefault(slot, threading.Lock())

    def _try(self, slot: Slot) -> bool:
        """The slot's lock among this object's threads, then its record lock, without waiting."""
        local = self._thread_lock(slot)
        if not local.acquire(blocking=False):
            return False
        try:
            shard, offset = slot
            fcntl.fcntl(self._fd(shard), fcntl.F_OFD_SETLK, _record(fcntl.F_WRLCK, offset))
            return True
        except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: another holder has it
            local.release()
            return False
        except BaseException:
            local.release()
            raise

    def _give_back(self, slot: Slot) -> None:
        """Clear the holder's name, release the record lock, then the threads' lock of the slot."""
        shard, offset = slot
        fd = self._fd(shard)
        try:
            os.pwrite(fd, bytes(SLOT_BYTES), offset * SLOT_BYTES)
        finally:
            try:
                fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _record(fcntl.F_UNLCK, offset))
            finally:
                self._threads[slot].release()

    @contextmanager
    def hold(self, resources: Iterable[str], owner: str = "") -> Iterator[tuple[str, ...]]:
        """Hold every lock of ``resources`` for the ``with`` body; yields the names, sorted.

        Raises ResourceLockTimeout, holding nothing, when the resources are not all free at once within the
        timeout (one deadline for all of them)."""
        names = tuple(sorted(set(resources)))
        slots: dict[Slot, str] = {}
        for name in names:
            slots.setdefault(slot_of(name), name)
        deadline = time.monotonic() + self.timeout_s
        pause = FIRST_PAUSE_S
        who = f"{owner or 'unnamed'}{f' [{self.identity}]' if self.identity else ''} (pid {os.getpid()})"
        holder = who.encode()[: SLOT_BYTES - 1].ljust(SLOT_BYTES, b"\0")
        while True:
            taken, busy = self._take_all(sorted(slots), holder)
            if busy is None:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                raise ResourceLockTimeout(slots[busy], self.timeout_s, self._holder(busy))
            time.sleep(min(pause, left))
            pause = min(2 * pause, LAST_PAUSE_S)
        try:
            yield names
        finally:
            for slot in reversed(taken):
                self._give_back(slot)

    def _take_all(self, slots: list[Slot], holder: bytes) -> tuple[list[Slot], Slot | None]:
        """Every slot's lock without waiting: (the slots, None), or (nothing, the first busy slot)."""
        taken: list[Slot] = []
        for slot in slots:
            if not self._try(slot):
                for held in reversed(taken):
                    self._give_back(held)
                return [], slot
            taken.append(slot)
            os.pwrite(self._fd(slot[0]), holder, slot[1] * SLOT_BYTES)
        return taken, None
