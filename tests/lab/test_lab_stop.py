"""``lab up`` waits for its stop signal without losing one sent right after the lab announced itself
(the cause of an interrupted CLI lab that sometimes stayed up: a signal handled just before
``signal.pause()`` left ``pause()`` waiting for another)."""

from __future__ import annotations

import signal
import threading

from pytest_gpufabric.lab.stop import STOP_SIGNALS, stop_signals_held


def test_a_signal_sent_before_the_wait_ends_the_wait() -> None:
    assert threading.current_thread() is threading.main_thread()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with stop_signals_held() as wait_for_stop:
        # Arrives before the wait starts, as under load; sent to this thread, since other threads (xdist's)
        # do not hold it.
        signal.pthread_kill(threading.get_ident(), signal.SIGHUP)
        assert signal.SIGHUP in signal.sigpending()
        assert wait_for_stop() is signal.SIGHUP
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
    assert not STOP_SIGNALS & signal.sigpending()


def test_the_stop_signals_are_held_only_inside_the_block() -> None:
    with stop_signals_held():
        assert STOP_SIGNALS <= signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert not STOP_SIGNALS & signal.pthread_sigmask(signal.SIG_BLOCK, [])
