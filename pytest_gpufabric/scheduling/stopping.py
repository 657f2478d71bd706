"""Stop means stop: what ends a run's traffic at once, in every process of the run (the controller and its workers).

- SIGINT or SIGTERM to any process of the run sets the run's stop flag (``exclusive.stop``), then ends that process
  as Ctrl-C does (pytest's interrupted run: what was recorded and reported so far is kept). The flag is set by the
  process's watcher thread as soon as the signal arrives (Python's wakeup file descriptor), whichever thread the
  kernel gave it to and whatever the main thread is waiting for;
- the controller sets it when a worker dies and when it is interrupted;
- each worker watches its parent: a controller that died (``kill -9``) sets it, and the worker ends as if
  interrupted;
- each process watches the flag: from the moment it is set no traffic test starts in it, and it stops its traffic
  commands still running on their nodes by their PID files (``exclusive.leases``).

What a ``kill -9`` leaves running on the nodes ends by its own bound there (``timeout`` around every command).
"""

from __future__ import annotations

import _thread
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType

from pytest_gpufabric.exclusive.stop import StopFlag
from pytest_gpufabric.readable import readable_within

POLL_S = 0.1  # how often a process looks at the stop flag and at its parent
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _signal_reason(signum: int) -> str:
    return f"{signal.Signals(signum).name} to pid {os.getpid()}"


class StopWatch:
    """A daemon thread of one process: calls ``on_stop(reason)`` once the run's flag is set; sets the flag itself on
    a stop signal to this process and, in a worker (``parent_pid``), when the controller has died (then it also
    interrupts the process: nobody is left to hand results to). Start and close it from the main thread."""

    def __init__(self, flag: StopFlag, on_stop: Callable[[str], None], parent_pid: int | None = None) -> None:
        self._flag = flag
        self._on_stop = on_stop
        self._parent_pid = parent_pid
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="gpufabric-stop-watch", daemon=True)
        self._wakeup: tuple[int, int] | None = None  # the pipe Python writes each signal's number to

    def start(self) -> None:
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        os.set_blocking(write_fd, False)
        try:
            previous = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        except ValueError:  # not the main thread: no signal of ours to see here
            previous = write_fd
        if previous != -1:  # another part of the process listens there: leave it, and watch by polling
            if previous != write_fd:
                signal.set_wakeup_fd(previous)
            os.close(read_fd)
            os.close(write_fd)
        else:
            self._wakeup = (read_fd, write_fd)
        self._thread.start()

    def close(self) -> None:
        """Stop watching (again: nothing)."""
        self._closed.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2 * POLL_S + 1)
        if self._wakeup is not None:
            replaced = signal.set_wakeup_fd(-1)
            if replaced != self._wakeup[1]:
                signal.set_wakeup_fd(replaced)  # replaced since: not ours to undo
            for fd in self._wakeup:
                os.close(fd)
            self._wakeup = None

    def _signalled(self) -> None:
        """Set the flag for a stop signal that has just arrived (its number in the wakeup pipe)."""
        assert self._wakeup is not None
        if not readable_within(self._wakeup[0], POLL_S):
            return
        try:
            numbers = os.read(self._wakeup[0], 64)
        except BlockingIOError:
            return
        for number in numbers:
            if number in STOP_SIGNALS:
                self._flag.set(_signal_reason(number))

    def _watch(self) -> None:
        while not self._closed.is_set():
            if self._wakeup is not None:
                self._signalled()
            elif self._closed.wait(POLL_S):
                return
            reason = self._flag.reason()
            orphaned = reason is None and self._parent_pid is not None and os.getppid() != self._parent_pid
            if orphaned:
                reason = self._flag.set(f"the controller (pid {self._parent_pid}) died")
            if reason is not None:
                self._on_stop(reason)
                if orphaned:
                    _thread.interrupt_main()
                return


def stop_on_signals(flag: StopFlag) -> Callable[[], None]:
    """Make SIGINT and SIGTERM set the stop flag, then interrupt this process as Ctrl-C does (where they have their
    default handlers); returns what restores the previous handlers. Call from the main thread."""
    previous: dict[signal.Signals, object] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        flag.set(_signal_reason(signum))
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    for sig in STOP_SIGNALS:
        current = signal.getsignal(sig)
        if current in (signal.default_int_handler, signal.SIG_DFL):
            previous[sig] = current
            signal.signal(sig, handler)

    def restore() -> None:
        for sig, old in previous.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, old)  # type: ignore[arg-type]
        previous.clear()
    return restore
