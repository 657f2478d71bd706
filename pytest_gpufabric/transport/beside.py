"""Commands beside one another: background commands (servers) run while foreground commands (their clients)
run one after the other, then each background that has not ended within a grace time is stopped by its own
stop command.

The results come back in a fixed order (backgrounds, foregrounds, stops), whichever ends first, so evidence,
recordings and replays stay deterministic. A replayed background ends at once; one whose recorded status
says it was stopped (``STOPPED_EXIT``) has its stop command replayed as well, as the live run ran it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.transport.base import CommandResult

Call = tuple[str, str, "float | None"]  # node, command, timeout (s)
RawRun = Callable[[str, str, "float | None", bool], CommandResult]  # node, command, timeout, cached
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


def run_beside(run: RawRun, backgrounds: Sequence[Call], foregrounds: Sequence[Call], stops: Sequence[Call],
               grace_s: float) -> BesideResults:
    """Start ``backgrounds``, and run ``foregrounds`` one after the other meanwhile; after the last one, stop
    (``stops[i]``) each background still running ``grace_s`` later, and wait for all. A foreground error stops
    every background, then propagates."""
    if len(stops) != len(backgrounds):
        raise ValueError(f"{len(backgrounds)} background commands need as many stop commands, got {len(stops)}")
    with ThreadPoolExecutor(max_workers=max(1, len(backgrounds)), thread_name_prefix="gpufabric-beside") as pool:
        futures = [pool.submit(_call, run, call) for call in backgrounds]
        try:
            fronts = tuple(_call(run, call) for call in foregrounds)
        except GpufabricError:
            for stop in stops:
                _stop_quietly(run, stop)
            raise
        ended, _ = wait(futures, timeout=grace_s)
        stopped: list[CommandResult | None] = [None if future in ended else _call(run, stop) for future, stop in zip(futures, stops)]
        results = tuple(future.result() for future in futures)
    stopped = [_call(run, stop) if done is None and result.exit_code == STOPPED_EXIT else done
               for done, result, stop in zip(stopped, results, stops)]
    return BesideResults(results, fronts, tuple(stopped))
