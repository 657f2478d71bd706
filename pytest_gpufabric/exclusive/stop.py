"""A run's stop flag: once set (a signal to any of its processes, a dead controller or worker, a busy cluster), no
further traffic test starts in any process of the run. A file in the run's folder, written once: the first reason
stays and is what every refused test and the terminal summary name; the file's modification time is the moment the
stop took effect (set by the process whose reason stayed, once its file was in place: a traffic test that starts
after it finds the flag)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

FILE = "stop"


class StopFlag:
    """The stop flag of one run (``folder``: the run's folder, shared by its processes)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE
        self._reason: str | None = None

    def set(self, reason: str) -> str:
        """Stop the run (unless it stopped already); the reason in effect."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        written = self.path.with_name(f".{FILE}.{os.getpid()}.{threading.get_ident()}")
        written.write_text(reason + "\n", encoding="utf-8")
        try:
            os.link(written, self.path)  # complete when it appears; the first reason stays
            now = time.time_ns()
            os.utime(self.path, ns=(now, now))
        except FileExistsError:
            pass
        finally:
            written.unlink()
        return self.reason() or reason

    def since(self) -> float | None:
        """When the stop took effect (seconds since the epoch), or None while the run goes on."""
        try:
            return self.path.stat().st_mtime
        except OSError:
            return None

    def reason(self) -> str | None:
        """Why the run stopped, or None while it goes on (one ``stat`` until it stops)."""
        if self._reason is not None:
            return self._reason
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        self._reason = text or "stopped"
        return self._reason
