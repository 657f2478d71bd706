"""Waiting for a file descriptor to become readable, whatever its number."""

from __future__ import annotations

import select


def readable_within(fd: int, timeout_s: float) -> bool:
    """True when ``fd`` has something to read (data, or its other end closed) within ``timeout_s`` seconds.
    ``poll``, not ``select``: ``select`` refuses descriptors above 1,023, and a controller of 1,024 nodes holds more
    (its connections, and 256 lock files a process)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(max(0.0, timeout_s) * 1000))
