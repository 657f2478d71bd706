"""The cyclic garbage collector kept off the collected items.

Collecting a 256-node cluster builds over 400,000 items, each a dozen long-lived objects (the item, its
keywords, markers, call spec, fixture request). While they are built, the collector rescans them over and
over (a third of the collection time of a bare pytest item), and once built, every full collection of the
run and of the interpreter's shutdown walks all of them again (at 256 nodes, tens of seconds at exit).
None of them is garbage while the session lasts, so the collector is paused while collecting and what was
collected is frozen (``gc.freeze``: left out of every later collection).

A process that ends with its session (the command line, an xdist worker) keeps them frozen to the end, and
freezes what the run built too before pytest's last collections (0.65 CPU-s at 1,024 x 8): the operating system
reclaims the memory at once. A session run inside a longer-lived process (pytester's
in-process runs in the project's own tests) hands them back to the collector when it ends.

While the items run, the collector runs less often (``RUN_THRESHOLDS``): a live round holds a connection to each
node (paramiko's transports, channels, threads and locks: thousands of objects a node), and each full collection
walked all of them. Measured at 1,024 x 8, one PERF-002 round: the collector 4.4 -> 1.8 CPU-s with the freeze at the
end, no full collection while the items ran (1.6 CPU-s before). The thresholds in force before the session are restored when it ends.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Generator

import pytest


def process_ends_with_session(config: pytest.Config) -> bool:
    """True for the command-line run (its arguments are the process's own) and for an xdist worker."""
    return hasattr(config, "workerinput") or tuple(config.invocation_params.args) == tuple(sys.argv[1:])


RUN_THRESHOLDS = (50_000, 20, 100)  # new objects before a young collection; collections before an older one


class CollectionGc:
    """pytest hooks keeping the cyclic collector off the collected items (see the module docstring)."""

    def __init__(self, keep_frozen: bool) -> None:
        self._keep_frozen = keep_frozen
        self._frozen = False
        self._thresholds: tuple[int, ...] | None = None  # those in force before the session

    def pytest_sessionstart(self) -> None:
        self._thresholds = gc.get_threshold()
        gc.set_threshold(*RUN_THRESHOLDS)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection(self) -> Generator[None, object, object]:
        if not gc.isenabled():
            return (yield)
        gc.disable()
        try:
            return (yield)
        finally:
            gc.freeze()
            self._frozen = True
            gc.enable()

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self) -> None:
        """Before pytest's last collections (which run the session's finalizers): the thresholds restored; in a
        process that goes on, the frozen objects handed back; in one that ends, what the run built frozen too."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
        if self._frozen and not self._keep_frozen:
            gc.unfreeze()
            self._frozen = False
        elif self._frozen:  # the process ends: pytest's last collections need not walk what the run built
            gc.freeze()
