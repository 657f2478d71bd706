"""Commands beside one another: background commands (servers) run while foreground commands (their clients)
run one after the other, then each background that has not ended within a grace time is stopped by its own
stop command.

The results come back in a fixed order (backgrounds, foregrounds, stops), whichever ends first, so evidence,
recordings and replays stay deterministic. A replayed background ends at once; one whose recorded status
says it was stopped (``STOPPED_EXIT``) has its stop command replayed as well, as the live run ran it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.transport.base import CommandResult

Call = tuple[str, str, "float | None"]  # node, command, timeout (s)
RawRun = Callable[[str, str, "float | None", bool], CommandResult]  # node, command, timeout, cached
StopAfter = Callable[[CommandResult], bool]  # a foreground result after which the others are not run
STOPPED_EXIT = 128 + 15  # the status a shell gives a command that SIGTERM ended


@dataclass(frozen=True)
class BesideResults:
    """What ran: each background's result, each foreground's, and each background's stop (None: not needed)."""

    backgrounds: tuple[CommandResult, ...]
    foregrounds: tuple[CommandResult, ...]
    stops: tuple[CommandResult | None, ...]

    @property
    def in_order(self) -> tuple[CommandResult, ...]:
        return (*self.backgrounds, *self.foregrounds, *(stop for stop in self.stops if stop is not None))


def _call(run: RawRun, call: Call) -> CommandResult:
    node, command, timeout_s = call
    return run(node, command, timeout_s, False)


def _stop_quietly(run: RawRun, stop: Call) -> None:
    """A stop on a path that already fails (its own error must not hide the first one)."""
    try:
        _call(run, stop)
    except GpufabricError:
        pass


def _stop_all_quietly(run: RawRun, futures: Sequence[Future[CommandResult]], stops: Sequence[Call], grace_s: float) -> None:
    """Stop every background on a failing path; a background that had not written its PID file yet when its stop
    came is stopped again after ``grace_s``."""
    for stop in stops:
        _stop_quietly(run, stop)
    _, running = wait(futures, timeout=grace_s)
    for future, stop in zip(futures, stops):
        if future in running:
            _stop_quietly(run, stop)


def _run_foregrounds(run: RawRun, foregrounds: Sequence[Call], stop_after: StopAfter | None) -> tuple[tuple[CommandResult, ...], bool]:
    """The foregrounds one after the other, up to the first result ``stop_after`` accepts (then True)."""
    fronts: list[CommandResult] = []
    for call in foregrounds:
        fronts.append(_call(run, call))
        if stop_after is not None and stop_after(fronts[-1]):
            return tuple(fronts), True
    return tuple(fronts), False


def run_beside(run: RawRun, backgrounds: Sequence[Call], foregrounds: Sequence[Call], stops: Sequence[Call],
               grace_s: float, stop_after: StopAfter | None = None) -> BesideResults:
    """Start ``backgrounds``, and run ``foregrounds`` one after the other meanwhile (the rest not, once a result
    satisfies ``stop_after``); after the last one, stop (``stops[i]``) each background still running ``grace_s``
    later, and wait for all. A foreground error stops every background, then propagates."""
    if len(stops) != len(backgrounds):
        raise ValueError(f"{len(backgrounds)} background commands need as many stop commands, got {len(stops)}")
    with ThreadPoolExecutor(max_workers=max(1, len(backgrounds)), thread_name_prefix="gpufabric-beside") as pool:
        futures = [pool.submit(_call, run, call) for call in backgrounds]
        try:
            fronts, stopped_early = _run_foregrounds(run, foregrounds, stop_after)
        except GpufabricError:
            _stop_all_quietly(run, futures, stops, grace_s)
            raise
        ended, _ = wait(futures, timeout=0 if stopped_early else grace_s)  # stopped early: no client is left to serve
        stopped: list[CommandResult | None] = [None if future in ended else _call(run, stop) for future, stop in zip(futures, stops)]
        results = tuple(future.result() for future in futures)
    stopped = [_call(run, stop) if done is None and result.exit_code == STOPPED_EXIT else done
               for done, result, stop in zip(stopped, results, stops)]
    return BesideResults(results, fronts, tuple(stopped))
