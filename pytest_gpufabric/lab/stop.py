"""Waiting for the signal that ends ``lab up`` (Ctrl-C, SIGTERM, SIGHUP) without a lost wake-up.

A plain ``signal.pause()`` loses a signal that arrives after the lab announced itself but before the
process reached ``pause()``: the handler has already run and ``pause()`` then waits for a next signal
that never comes. Here the stop signals are blocked *before* the lab is announced, so one sent at any
moment after that stays pending until ``sigwait`` takes it.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager

STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


@contextmanager
def stop_signals_held() -> Iterator[Callable[[], signal.Signals]]:
    """Block the stop signals for the block's duration; yields a function that waits for one of them and
    returns it. The previous signal mask is restored on leaving (main thread only, like all signals)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)

    def wait() -> signal.Signals:
        return signal.Signals(signal.sigwait(STOP_SIGNALS))

    try:
        yield wait
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
