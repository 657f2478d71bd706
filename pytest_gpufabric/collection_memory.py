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

Measured again with tracemalloc at 1,000 nodes x 8 rails (``rounds:1``), what was left per item still held parts
that are the same for many items or empty until the item runs:

- its node id's names (the file's path parts and the test's name: a new tuple per item) and its parameter id (a
  new string per item, twice: in the node id and as a keyword): one copy each, shared (``CollectionShare``);
- its stash (an empty mapping) and its two empty per-run lists (report sections, user properties): one shared,
  read-only stand-in each while the items wait (``slim_item``), fresh ones when the item starts (``item_runs``),
  the report sections (and user properties left empty) dropped again once its reports are made (each report
  holds its own copy).

The peak came after collection: pytest orders the items by their parametrized fixtures above function scope
(its fixture manager's ``pytest_collection_modifyitems``), and to find that no item has one it builds several
mappings and queues of every item, one set per scope (60 MB at 1,000 nodes, 1.9 GB at 20,000). A check's
parameters are all of function scope, so where no item has such a fixture the order is the order collected and
that hook hands the items back at once (``reorder_only_where_needed``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

import pytest

NO_EXTRA_KEYWORDS: frozenset[str] = frozenset()
EMPTY_UNTIL_RUN: tuple[()] = ()  # an item's report sections and user properties while it waits to run


class WaitingStash(pytest.Stash):
    """The stash of every item waiting to run: empty and read-only (pytest and the plugins write an item's stash
    while it runs, into the fresh one ``item_runs`` gives it)."""

    __slots__ = ()

    def __setitem__(self, key: Any, value: Any) -> NoReturn:
        raise TypeError("gpufabric: an item's stash is written only while the item runs (collection_memory)")

    def __delitem__(self, key: Any) -> NoReturn:
        raise TypeError("gpufabric: an item's stash is written only while the item runs (collection_memory)")


@dataclass
class CollectionShare:
    """What the items of one process share: one copy of each node-id name tuple and parameter id."""

    stash: WaitingStash = field(default_factory=WaitingStash)
    names: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)

    def param(self, text: str) -> str:
        return self.params.setdefault(text, text)


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


def reorder_only_where_needed(config: pytest.Config) -> None:
    """Make pytest's fixture ordering of the items skip its work where it would give the items in their order: no
    item has a parameter of a fixture above function scope (each call spec checked once: whether it gives such a
    parameter depends on the call spec alone). Without pytest's fixture manager hook as expected, nothing."""
    try:
        from _pytest.fixtures import get_param_argkeys
        from _pytest.scope import HIGH_SCOPES
    except ImportError:  # another pytest: its ordering stays as it is
        return
    manager = config.pluginmanager.get_plugin("funcmanage")
    for impl in config.hook.pytest_collection_modifyitems.get_hookimpls():
        if manager is None or impl.plugin is not manager or impl.hookwrapper or getattr(impl, "wrapper", False):
            continue
        reorder = impl.function

        def only_where_needed(items: list[pytest.Item], _reorder: Any = reorder) -> None:
            checked: set[int] = set()
            for item in items:
                callspec = getattr(item, "callspec", None)
                if callspec is None or id(callspec) in checked:
                    continue
                checked.add(id(callspec))
                if any(next(get_param_argkeys(item, scope), None) is not None for scope in HIGH_SCOPES):
                    _reorder(items)
                    return
        impl.function = only_where_needed


def slim_item(item: pytest.Item, share: CollectionShare) -> None:
    """Drop what a collected item makes again when it runs, share its empty keyword set, its node id's parts and
    its parameter id, and stand in for its empty stash and per-run lists until it runs."""
    if getattr(item, "_request", None):
        item._request = False  # type: ignore[attr-defined]  # made again by runtestprotocol, as after a run
        item.funcargs = None  # type: ignore[attr-defined]
    if not item.extra_keyword_matches:
        item.extra_keyword_matches = NO_EXTRA_KEYWORDS  # type: ignore[assignment]
    _share_ids(item, share)
    if not item.stash._storage and type(item.stash) is pytest.Stash:  # type: ignore[attr-defined]
        item.stash = item._store = share.stash  # type: ignore[attr-defined]
    if not item._report_sections:  # type: ignore[attr-defined]
        item._report_sections = EMPTY_UNTIL_RUN  # type: ignore[attr-defined]
    if not item.user_properties:
        item.user_properties = EMPTY_UNTIL_RUN  # type: ignore[assignment]


def _share_ids(item: pytest.Item, share: CollectionShare) -> None:
    """One copy of the node id's names and of the parameter id, also as the item's keyword (pytest 9's NodeId)."""
    node_id = getattr(item, "_id", None)
    if not dataclasses.is_dataclass(node_id) or not isinstance(getattr(node_id, "names", None), tuple):
        return
    params = node_id.params if isinstance(node_id.params, str) else None
    names = share.names.setdefault(node_id.names, node_id.names)
    object.__setattr__(node_id, "names", names)  # equal values (its hash unchanged), one copy: no new NodeId
    if params:
        object.__setattr__(node_id, "params", share.param(params))
    markers = getattr(item.keywords, "_markers", None)
    if params and isinstance(markers, dict) and params in markers:
        shared = share.param(params)
        item.keywords._markers = {shared if key == params else key: value for key, value in markers.items()}  # type: ignore[attr-defined]


@contextmanager
def item_runs(item: pytest.Item) -> Generator[None, None, None]:
    """Around an item's run (``pytest_runtest_protocol``): its own stash and per-run lists while it runs; the lists
    dropped again once its reports are made."""
    if isinstance(item.stash, WaitingStash):
        item.stash = item._store = pytest.Stash()  # type: ignore[attr-defined]
    if item._report_sections is EMPTY_UNTIL_RUN:  # type: ignore[attr-defined]
        item._report_sections = []  # type: ignore[attr-defined]
    if item.user_properties is EMPTY_UNTIL_RUN:
        item.user_properties = []
    try:
        yield
    finally:
        item._report_sections = EMPTY_UNTIL_RUN  # type: ignore[attr-defined]  # each report copied its sections
        if not item.user_properties:
            item.user_properties = EMPTY_UNTIL_RUN  # type: ignore[assignment]
