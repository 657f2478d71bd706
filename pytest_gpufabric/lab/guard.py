"""Tear a lab down when the process ends: at interpreter exit, and on SIGTERM / SIGHUP.

SIGINT needs nothing here: it raises KeyboardInterrupt, which unwinds through ``Lab.__exit__`` (or
pytest's fixture teardown). Handlers chain to whatever was installed before, so several labs (or pytest's
own handlers) keep working; after tearing down, a signal whose previous disposition was the default is
re-raised with the default action, so the process still ends as it would have.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

GUARDED_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


class TeardownGuard:
    """Runs ``teardown`` (at most once) at exit or on a terminating signal, until ``disarm``."""

    def __init__(self, teardown: Callable[[], None]) -> None:
        self._teardown = teardown
        self._armed = False
        self._previous: dict[int, Handler] = {}

    def arm(self) -> None:
        self._armed = True
        atexit.register(self._run_teardown)
        if threading.current_thread() is threading.main_thread():
            for sig in GUARDED_SIGNALS:
                self._previous[sig] = signal.getsignal(sig)
                signal.signal(sig, self._on_signal)

    def disarm(self) -> None:
        """Stop guarding; restore the previous handlers where ours is still the installed one."""
        self._armed = False
        atexit.unregister(self._run_teardown)
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, previous in list(self._previous.items()):
            if signal.getsignal(sig) == self._on_signal:
                signal.signal(sig, previous if previous is not None else signal.SIG_DFL)
                del self._previous[sig]
            # else: a later handler chains to ours; ours stays in the chain, disarmed, and only forwards.

    def _run_teardown(self) -> None:
        if self._armed:
            self._armed = False
            self._teardown()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._run_teardown()
        previous = self._previous.get(signum, signal.SIG_DFL)
        if callable(previous):
            previous(signum, frame)
        elif previous in (signal.SIG_DFL, None):
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
