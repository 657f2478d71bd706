"""Nodes and NICs marked down for the rest of a run, shared by every process of the run.

A node that fails ``DOWN_AFTER`` transport operations in a row (in one process), or a NIC that cannot be reached,
is marked down with its first cause: a file per name in the run's folder, created once (the first cause stays).
Every process then refuses at once what would use it: its items error with that cause instead of each waiting for
its own timeout, and no healthy NIC pair waits behind it.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.errors import TransportError
from pytest_gpufabric.exclusive.locks import lock_file_name

DOWN_AFTER = 3  # transport operations that fail in a row before a node is marked down


@dataclass(frozen=True)
class DownMark:
    """One name marked down: when (seconds since the epoch) and its first cause."""

    at: float
    cause: str


class DownMarks:
    """The down marks of one run (``folder``: inside the run's folder, shared by its processes)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._known: dict[str, DownMark] = {}
        self._seen_mtime: int | None = None
        self._guard = threading.Lock()

    def mark(self, name: str, cause: str) -> str:
        """Mark ``name`` (a node, or ``node/nic``) down; the cause in effect (an earlier one stays)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / lock_file_name(name)
        written = self.folder / f".{path.name}.{os.getpid()}.{threading.get_ident()}"
        at = time.time()
        written.write_text(f"{name}\t{at:.3f}\t{cause}\n", encoding="utf-8")
        try:
            os.link(written, path)  # complete when it appears; the first mark stays
        except FileExistsError:
            return self.cause(name) or cause
        finally:
            written.unlink()
        with self._guard:  # this process knows its own mark at once (the folder's time may not have moved)
            self._known.setdefault(name, DownMark(float(f"{at:.3f}"), cause))
        return self.cause(name) or cause

    def cause(self, name: str) -> str | None:
        """Why ``name`` is down, or None; one ``stat`` of the folder when nothing changed, without taking the guard
        (a round's jobs ask for each of their NICs from hundreds of threads at once)."""
        found = self._known.get(name)
        if found is not None:
            return found.cause
        try:
            mtime = os.stat(self.folder).st_mtime_ns
        except OSError:
            return None
        if mtime == self._seen_mtime:
            return None
        with self._guard:
            if mtime != self._seen_mtime:
                self._read_all()
                self._seen_mtime = mtime  # after the read: a thread that sees it finds the marks read
            found = self._known.get(name)
        return found.cause if found is not None else None

    def all(self) -> dict[str, DownMark]:
        """Every name marked down so far: when, and its first cause."""
        with self._guard:
            if self.folder.is_dir():
                self._read_all()
            return dict(self._known)

    def _read_all(self) -> None:
        for path in self.folder.iterdir():
            if path.name.startswith("."):
                continue  # a mark being written
            try:
                name, at, cause = path.read_text(encoding="utf-8").rstrip("\n").split("\t", 2)
                self._known.setdefault(name, DownMark(float(at), cause))
            except (OSError, UnicodeDecodeError, ValueError):
                continue


class NodeHealth:
    """This process's view of the nodes: consecutive transport failures counted per node, marks shared."""

    def __init__(self, marks: DownMarks, down_after: int = DOWN_AFTER) -> None:
        self.marks = marks
        self.down_after = down_after
        self._failures: dict[str, tuple[int, str]] = {}  # node -> (failures in a row, the first one's cause)
        self._guard = threading.Lock()

    def refuse_if_down(self, node: str) -> None:
        """Raise TransportError with the first cause when ``node`` is marked down."""
        cause = self.marks.cause(node)
        if cause is not None:
            raise TransportError(node, f"marked down for the rest of the run: {cause}")

    def failed(self, node: str, cause: str) -> None:
        """One more transport failure of ``node`` in a row; the ``down_after``-th marks it down."""
        with self._guard:
            count, first = self._failures.get(node, (0, cause))
            self._failures[node] = (count + 1, first)
            reached = count + 1 >= self.down_after
        if reached:
            self.marks.mark(node, first)

    def succeeded(self, node: str) -> None:
        with self._guard:
            self._failures.pop(node, None)
