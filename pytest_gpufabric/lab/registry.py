"""Where labs keep their files, who owns a lab, and which labs are stale.

Every lab has a directory ``<tmp>/gpufabric-lab/<lab_id>/`` (mode 0700) holding its keys, sshd
configurations, logs, PID files and ``owner`` (PID and start time of the process that built it). A lab
whose owner process is gone is stale; the sweeper removes stale labs and nothing else.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

OWNER_FILE = "owner"


def labs_root() -> Path:
    """The parent directory of every lab's directory."""
    return Path(tempfile.gettempdir()) / "gpufabric-lab"


def lab_dir(lab_id: str) -> Path:
    return labs_root() / lab_id


@dataclass(frozen=True)
class Owner:
    """The process that built a lab; the start time guards against PID reuse."""

    pid: int
    start_ticks: int

    def serialize(self) -> str:
        return f"{self.pid} {self.start_ticks}\n"

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        parts = text.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            return None
        return cls(int(parts[0]), int(parts[1]))

    def alive(self) -> bool:
        return process_start_ticks(self.pid) == self.start_ticks


def process_start_ticks(pid: int) -> int | None:
    """Field 22 of /proc/<pid>/stat (start time in clock ticks), or None if the process is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may contain spaces and parentheses: split after its closing ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def current_owner() -> Owner:
    pid = os.getpid()
    ticks = process_start_ticks(pid)
    if ticks is None:
        raise RuntimeError("cannot read this process's own /proc entry")
    return Owner(pid, ticks)


def claim_lab_dir(lab_id: str) -> Path:
    """Create the lab's directory (it must not exist yet) and record this process as the owner."""
    root = labs_root()
    root.mkdir(mode=0o700, exist_ok=True)
    path = lab_dir(lab_id)
    path.mkdir(mode=0o700)
    (path / OWNER_FILE).write_text(current_owner().serialize())
    return path


def read_owner(lab_id: str) -> Owner | None:
    try:
        return Owner.parse((lab_dir(lab_id) / OWNER_FILE).read_text())
    except OSError:
        return None


def is_stale(lab_id: str) -> bool:
    """True when no living process owns the lab (no directory, no owner file, or its owner is gone)."""
    owner = read_owner(lab_id)
    return owner is None or not owner.alive()
