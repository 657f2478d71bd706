"""One lock per exclusive resource (a NIC, a GPU, a perftest port), taken all at once or not at all.

Every test that needs resources takes all of their locks before it starts, and frees them when it ends. It
never holds a lock while it waits: when one of its resources is busy it frees what it took, pauses (10 ms,
doubling up to 200 ms) and tries again, so a test stuck behind one busy NIC keeps no other NIC from the tests
that could run, and no two tests can deadlock. A test that cannot get all of its locks within the timeout fails
with the name of the busy resource and, when known, the test and run that hold it.

The locks of every resource live in ``SHARDS`` files of the lock folder (``resources-NNN.lock``): a resource is a slot
of ``SLOT_BYTES`` bytes at an offset derived from its name, in the file its name's hash gives, locked with an
open-file-description record lock (Linux ``F_OFD_SETLK``: it belongs to the descriptor of one ``ResourceLocks``, not
to the process, so two of them exclude each other even in one process, and closing one releases only its own) and
holding the name of its latest holder (written when it is taken, read only while it is held by another). Threads
sharing one ``ResourceLocks`` take turns: one of them at a time takes (or gives back) all of its job's locks, without
waiting (a busy resource: it gives back what it took and pauses outside its turn), and a slot one of them holds is
refused to the others. So a process needs at most ``SHARDS`` file descriptors for all its locks: a 1,024-node x
8-rail round holds about 25,000 locks at once, more than the descriptors a process may open (one lock file each
failed there with "Too many open files"); a lock costs two system calls and a release one.

Why several files: the kernel keeps a file's record locks in one list and walks it on every lock and unlock, so
in one file a lock cost in proportion to every lock held (measured: one job's 48 locks 0.175 ms with none held, 3.0
ms among 5,000 held; 25,000 held at a 1,024 x 8 round cost the controller 14.9 CPU-s, more than its SSH commands).
Spread over ``SHARDS`` files, each list holds 1/``SHARDS`` of them: a job's locks among a round's 24,576 held cost
0.83-0.88 ms in 64 files (5.7-5.8 x none held), 0.21 ms in 256 (1.2-1.4 x), for 256 descriptors a process.

Why turns: a round's jobs take their locks from hundreds of threads at once, and their system calls on the same lock
files waited for each other in the kernel (the file's lock list, its inode), each one handing the interpreter to
another thread and back. Measured with 64 threads (``tests/bench/test_bench_locks.py``): a job's 48 locks 3.9 ms of
CPU at once against 0.67-0.86 ms one job at a time; taking turns, about as cheap at once as one by one.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import struct
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pytest_gpufabric.errors import GpufabricError

UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")
FIRST_PAUSE_S = 0.01  # first pause of a test whose resources are not all free (doubling)
LAST_PAUSE_S = 0.2
LOCK_FILES = "resources-{shard:03d}.lock"
SHARDS = 256  # lock files: each holds the slots of the resources whose name hashes to it
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


def _close_all(fds: dict[int, int]) -> None:
    """Close every descriptor of ``fds`` and forget them."""
    while fds:
        os.close(fds.popitem()[1])


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
        self._held: set[Slot] = set()  # slots held through this object, by any of its threads
        self._turn = threading.Lock()  # one thread at a time takes or gives back its locks (and opens lock files)
        # Dropped without ``close``, the object still gives its descriptors back (up to SHARDS of them).
        self._closing = weakref.finalize(self, _close_all, self._fds)

    def close(self) -> None:
        """Give the lock files' descriptors back (every lock still held through them with them)."""
        with self._turn:
            self._held.clear()
            _close_all(self._fds)

    def _fd(self, shard: int) -> int:
        """The descriptor of a shard's lock file (in this thread's turn)."""
        fd = self._fds.get(shard)
        if fd is None:
            path = self.lock_dir / LOCK_FILES.format(shard=shard)
            fd = self._fds[shard] = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        return fd

    def _holder(self, slot: Slot) -> str | None:
        shard, offset = slot
        with self._turn:
            fd = self._fd(shard)
        text = os.pread(fd, SLOT_BYTES, offset * SLOT_BYTES).split(b"\0", 1)[0]
        return text.decode("utf-8", errors="replace").strip() or None

    def _try(self, slot: Slot) -> bool:
        """The slot's record lock without waiting (in this thread's turn); refused while another thread of this
        object holds it (record locks of one descriptor never exclude each other)."""
        if slot in self._held:
            return False
        shard, offset = slot
        try:
            fcntl.fcntl(self._fd(shard), fcntl.F_OFD_SETLK, _record(fcntl.F_WRLCK, offset))
        except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: another holder has it
            return False
        self._held.add(slot)
        return True

    def _give_back(self, slot: Slot) -> None:
        """Release the record lock (in this thread's turn). Its holder's name stays: it is read only while another
        holder, who wrote its own, has the slot."""
        shard, offset = slot
        try:
            fcntl.fcntl(self._fd(shard), fcntl.F_OFD_SETLK, _record(fcntl.F_UNLCK, offset))
        finally:
            self._held.discard(slot)

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
            with self._turn:
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
            with self._turn:
                for slot in reversed(taken):
                    self._give_back(slot)

    def _take_all(self, slots: list[Slot], holder: bytes) -> tuple[list[Slot], Slot | None]:
        """Every slot's lock without waiting (in this thread's turn): (the slots, None), or (nothing, the first busy
        slot)."""
        taken: list[Slot] = []
        for slot in slots:
            if not self._try(slot):
                for held in reversed(taken):
                    self._give_back(held)
                return [], slot
            taken.append(slot)
            os.pwrite(self._fd(slot[0]), holder, slot[1] * SLOT_BYTES)
        return taken, None
