"""Reads many nodes at once (bounded threads), reporting each node as it finishes."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from pytest_gpufabric.discovery.probe import NodeFacts, probe_node
from pytest_gpufabric.discovery.targets import Target
from pytest_gpufabric.errors import GpufabricError
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
    pool = ThreadPoolExecutor(max_workers=max(1, min(workers, len(targets))))
    futures = {pool.submit(_one, transport, target, timeout_s, lldp): i for i, target in enumerate(targets)}
    outcomes: dict[int, NodeOutcome] = {}
    try:
        for future in as_completed(futures):
            outcomes[futures[future]] = outcome = future.result()
            progress(outcome)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        return [outcomes.get(i) or NodeOutcome(target, None, INTERRUPTED, 0.0) for i, target in enumerate(targets)]
    pool.shutdown()
    return [outcomes[i] for i in range(len(targets))]
