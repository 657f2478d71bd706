"""Reads many nodes at once (``fanout``), reporting each node as it finishes."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_gpufabric.discovery.probe import NodeFacts, probe_node
from pytest_gpufabric.discovery.targets import Target
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.fanout import fan_out
from pytest_gpufabric.transport.base import Transport


INTERRUPTED = "interrupted before it was read"


@dataclass(frozen=True)
class NodeOutcome:
    """One node's discovery: its facts, or why there are none (unreachable, unreadable output)."""

    target: Target
    facts: NodeFacts | None
    error: str | None
    seconds: float


def _one(transport: Transport, target: Target, timeout_s: float, lldp: bool) -> NodeOutcome:
    started = time.monotonic()
    try:
        facts = probe_node(transport, target.name, target.address, timeout_s, lldp=lldp)
    except GpufabricError as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        return NodeOutcome(target, None, reason, round(time.monotonic() - started, 2))
    return NodeOutcome(target, facts, None, round(time.monotonic() - started, 2))


def discover_nodes(
    targets: Sequence[Target],
    transport: Transport,
    *,
    workers: int = 16,
    timeout_s: float = 60.0,
    lldp: bool = True,
    progress: Callable[[NodeOutcome], None] = lambda outcome: None,
) -> list[NodeOutcome]:
    """Every target's outcome, in the targets' order; ``progress`` hears of each node when it is done.
    Interrupted (Ctrl-C), the nodes not read yet are outcomes with the error "interrupted", so what was
    read so far is still written; nodes being read finish their bounded commands first."""
    return fan_out(targets, lambda target: _one(transport, target, timeout_s, lldp), workers=workers,
                   interrupted=lambda target: NodeOutcome(target, None, INTERRUPTED, 0.0), progress=progress)
