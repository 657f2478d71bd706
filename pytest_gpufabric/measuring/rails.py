"""Measure every same-rail NIC pair of a node pair at once, through the transports, with bounded fan-out.

Each NIC pair runs its own commands (kept as its evidence, in order) in a worker thread of a
``concurrent.futures`` pool; a pair that cannot be measured keeps its error and never hides the others. A
``NodePairMeasure`` measures the NIC pairs of one node pair together (one command per node and step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pytest_gpufabric.errors import GpufabricError, TransportError
from pytest_gpufabric.evidence_runner import EvidenceRunner, RunFunc
from pytest_gpufabric.targets import NicPairTarget
from pytest_gpufabric.transport.base import CommandResult

T = TypeVar("T")


@dataclass(frozen=True)
class RailMeasurement(Generic[T]):
    """What one NIC pair gave: its value, or why it could not be measured (``error_kind``: ``message``)."""

    pair: NicPairTarget
    value: T | None
    commands: tuple[CommandResult, ...]
    error_kind: str | None = None
    error: str | None = None


@dataclass
class RailRunner(EvidenceRunner):
    """Runs one NIC pair's commands through ``run`` and keeps them, in order (the ``Runner`` of the checks)."""

    _run: RunFunc
    commands: list[CommandResult] = field(default_factory=list)


Measure = Callable[[RailRunner, NicPairTarget], T]


def error_kind(exc: BaseException) -> str:
    """``transport`` for a node that could not be reached, else the error's class name."""
    return "transport" if isinstance(exc, TransportError) else type(exc).__name__


def measure_one(pair: NicPairTarget, measure: Measure[T], run: RunFunc) -> RailMeasurement[T]:
    runner = RailRunner(run)
    try:
        value = measure(runner, pair)
    except GpufabricError as exc:
        return RailMeasurement(pair, None, tuple(runner.commands), error_kind(exc), str(exc))
    return RailMeasurement(pair, value, tuple(runner.commands))


def measure_rails(pairs: Sequence[NicPairTarget], measure: Measure[T], run: RunFunc, fanout: int) -> list[RailMeasurement[T]]:
    """``measure`` every pair, at most ``fanout`` at once; results in the order of ``pairs``."""
    if not pairs:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(fanout, len(pairs))), thread_name_prefix="gpufabric-rail") as pool:
        futures = [pool.submit(measure_one, pair, measure, run) for pair in pairs]
        return [future.result() for future in futures]


@dataclass(frozen=True)
class NodePairMeasure(Generic[T]):
    """Measures every NIC pair of a node pair in one go (``measure(runner, pairs)``: one value or error per NIC
    pair, by pair id), as one job of the round engine: one command per node and step instead of one per NIC pair."""

    measure: Callable[[RailRunner, Sequence[NicPairTarget]], dict[str, "T | GpufabricError"]]


def measure_together(pairs: Sequence[NicPairTarget], group: NodePairMeasure[T], run: RunFunc) -> list[RailMeasurement[T]]:
    """The NIC pairs of one node pair measured together; the commands are kept once, with the first pair."""
    runner = RailRunner(run)
    try:
        found = group.measure(runner, pairs)
    except GpufabricError as exc:
        found = {pair.id: exc for pair in pairs}
    measured = []
    for index, pair in enumerate(pairs):
        commands = tuple(runner.commands) if index == 0 else ()
        value = found.get(pair.id, GpufabricError(f"{pair.id}: not measured"))
        measured.append(RailMeasurement(pair, None, commands, error_kind(value), str(value)) if isinstance(value, GpufabricError)
                        else RailMeasurement(pair, value, commands))
    return measured
