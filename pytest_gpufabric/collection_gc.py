"""The cyclic garbage collector kept off the collected items.

Collecting a 256-node cluster builds over 400,000 items, each a dozen long-lived objects (the item, its
keywords, markers, call spec, fixture request). While they are built, the collector rescans them over and
over (a third of the collection time of a bare pytest item), and once built, every full collection of the
run and of the interpreter's shutdown walks all of them again (at 256 nodes, tens of seconds at exit).
None of them is garbage while the session lasts, so the collector is paused while collecting and what was
collected is frozen (``gc.freeze``: left out of every later collection).

A process that ends with its session (the command line, an xdist worker) keeps them frozen to the end: the
operating system reclaims the memory at once. A session run inside a longer-lived process (pytester's
in-process runs in the project's own tests) hands them back to the collector when it ends.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Generator

import pytest


def process_ends_with_session(config: pytest.Config) -> bool:
    """True for the command-line run (its arguments are the process's own) and for an xdist worker."""
    return hasattr(config, "workerinput") or tuple(config.invocation_params.args) == tuple(sys.argv[1:])


class CollectionGc:
    """pytest hooks keeping the cyclic collector off the collected items (see the module docstring)."""

    def __init__(self, keep_frozen: bool) -> None:
        self._keep_frozen = keep_frozen
        self._frozen = False

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
        """In a process that goes on: before pytest's last collection (which runs the session's finalizers)."""
        if self._frozen and not self._keep_frozen:
            gc.unfreeze()
            self._frozen = False
