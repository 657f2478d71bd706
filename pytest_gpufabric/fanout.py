"""Work on many nodes at once: a bounded pool of threads, each node's outcome in the nodes' order, a progress
callback as each one finishes, and an interrupted run (Ctrl-C) that keeps what finished (the others get the
``interrupted`` outcome). Used by discovery and by preflight; the work goes through the project's transports."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def fan_out(items: Sequence[T], work: Callable[[T], R], *, workers: int, interrupted: Callable[[T], R],
            progress: Callable[[R], None] = lambda outcome: None) -> list[R]:
    """``work`` on every item, at most ``workers`` at once; outcomes in the items' order."""
    if not items:
        return []
    pool = ThreadPoolExecutor(max_workers=max(1, min(workers, len(items))), thread_name_prefix="gpufabric-fanout")
    futures = {pool.submit(work, item): index for index, item in enumerate(items)}
    outcomes: dict[int, R] = {}
    try:
        for future in as_completed(futures):
            outcomes[futures[future]] = outcome = future.result()
            progress(outcome)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        return [outcomes[i] if i in outcomes else interrupted(item) for i, item in enumerate(items)]
    pool.shutdown()
    return [outcomes[i] for i in range(len(items))]
