"""What pytest keeps per collected item that a cluster run can share or drop: memory at scale.

A pytest item of a check costs about 2.7 kB (measured with tracemalloc on pytest 9: a bare parametrized test
costs the same), and a cluster has hundreds of items per node. Three parts of it are the same for many items or
not needed until the item runs:

- its call spec (about 0.8 kB: the parameter dict, its index, its scope, its id list, its marks): every check of
  one scope is parametrized with the same targets in the same order, so the call specs pytest built for the first
  check test of a scope are given to the others (``share_calls``; only where they hold that one parameter);
- its fixture request and its (empty) argument dict (about 0.2 kB): pytest drops both after an item has run and
  makes them again when it starts (``runtestprotocol``); they are dropped as each item is collected (``slim_item``,
  so the memory goes to the next items);
- its empty set of extra ``-k`` keywords (0.2 kB): one shared empty frozenset instead (pytest only reads it).

Together: about 1.3 kB less per item (``tools/collection_scale.py`` has the figures).
"""

from __future__ import annotations

from typing import Any

import pytest

NO_EXTRA_KEYWORDS: frozenset[str] = frozenset()


def share_calls(metafunc: pytest.Metafunc, scope: str, shared: dict[str, Any]) -> None:
    """After ``metafunc.parametrize(scope, ...)``: reuse the call specs of the first test of ``scope`` when this
    test's are the same (only the scope's parameter, the same ids in the same order)."""
    calls = getattr(metafunc, "_calls", None)
    if not isinstance(calls, list) or not calls or not all(set(getattr(call, "params", {})) == {scope} for call in calls[:1]):
        return
    first = shared.get(scope)
    if first is None:
        shared[scope] = calls
        return
    if len(first) == len(calls) and first[0].id == calls[0].id and first[-1].id == calls[-1].id and \
            first[-1].params[scope] is calls[-1].params[scope]:
        metafunc._calls = first  # type: ignore[attr-defined]  # the same targets (prebuilt parameters of the scope)


def slim_item(item: pytest.Item) -> None:
    """Drop what a collected item makes again when it runs, share its empty keyword set."""
    if getattr(item, "_request", None):
        item._request = False  # type: ignore[attr-defined]  # made again by runtestprotocol, as after a run
        item.funcargs = None  # type: ignore[attr-defined]
    if not item.extra_keyword_matches:
        item.extra_keyword_matches = NO_EXTRA_KEYWORDS  # type: ignore[assignment]
