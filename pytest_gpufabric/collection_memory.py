"""What pytest keeps per collected item that a cluster run can share or drop: memory at scale.

A pytest item of a check costs about 2.7 kB (measured with tracemalloc on pytest 9: a bare parametrized test
costs the same), and a cluster has hundreds of items per node. Three parts of it are the same for many items or
not needed until the item runs:

- its call spec (about 0.8 kB: the parameter dict, its index, its scope, its id list, its marks): every check of
  one scope is parametrized with the same targets in the same order, so the call specs pytest built for the first
  check test of a scope are given to the others (``parametrize_shared``; only where they hold that one parameter);
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

A 20,000-node site (5.63 M items with ``rounds:1``) still peaked at 6.1 GiB; measured per module and per test
function, the rest went to:

- items slimmed only once a whole module was collected (``pytest_itemcollected`` comes after the module's last
  item is built: 1.4 M unslimmed items of QoS checks at once): now slimmed as each test function's items are built;
- the call specs of every check test after the first of its scope, built by pytest only to be replaced by the
  shared ones (0.6 kB an item, freed but fragmenting the memory around the items that stay): such a test is now
  parametrized with its scope's first parameter alone, then takes the shared call specs (``parametrize_shared``);
- its keywords (its name, its test function's markers and attributes, its parameter id: a dict per item): the
  function's part one dict for all its items, name and parameter id read from the item (``WaitingKeywords``);
- its markers (a list per item, the same marks for every item of a function) and its name (its test function's
  name and parameter id, a new string per item): one tuple for all the function's items, the name made when read
  (``WaitingFunction``). A write to either (``add_marker``, a new name) gives the item its own again;
- the same markers added to every item of a check (a skip where it does not apply, Allure's labels): one tuple and
  one keywords dict per check (``add_markers``), not a list and a dict per item;
- its node id's string, kept by pytest once made (every item's, once ``-q`` or an xdist worker lists them): made
  again when asked until the items run, then kept as pytest does (``keep_node_ids``: allure-pytest keys a running
  item by the identity of that string).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

import pytest
from _pytest.mark.structures import NodeKeywords

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
    keywords: dict[tuple[tuple[str, int], ...], tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    markers: dict[tuple[int, ...], tuple[Any, ...]] = field(default_factory=dict)
    added: dict[tuple[int, ...], tuple[Any, ...]] = field(default_factory=dict)  # add_markers: what it made, kept

    def param(self, text: str) -> str:
        return self.params.setdefault(text, text)


def parametrize_shared(metafunc: pytest.Metafunc, scope: str, parameters: list[Any], shared: dict[str, Any]) -> None:
    """``metafunc.parametrize(scope, parameters)``, with the call specs of the first check test of ``scope`` given
    to the others: ``parameters`` is the scope's one prebuilt list, so where a test had no call spec before, its
    call specs would equal the first's. Such a test is parametrized with the first parameter alone (pytest does
    everything else a parametrization does: the parameter's fixture, its directness) and then takes the first
    test's call specs, so none of its own is built only to be dropped (0.6 kB an item, and the memory it fragments)."""
    first = shared.get(scope)
    if getattr(metafunc, "_calls", None) or first is None or first[0] is not parameters or len(parameters) < 2:
        metafunc.parametrize(scope, parameters)
        calls = getattr(metafunc, "_calls", None)
        if first is None and isinstance(calls, list) and len(calls) == len(parameters) and \
                all(set(getattr(call, "params", ())) == {scope} for call in calls[:1]):
            shared[scope] = (parameters, calls)
        return
    metafunc.parametrize(scope, parameters[:1])
    own, calls = getattr(metafunc, "_calls", None), first[1]
    if isinstance(own, list) and len(own) == 1 and own[0].id == calls[0].id and own[0].params == calls[0].params and \
            own[0].indices == calls[0].indices and own[0].marks == calls[0].marks:
        metafunc._calls = calls  # type: ignore[attr-defined]
    else:  # pytest made another call spec than the first test's: this test's own, in full
        metafunc._calls = []  # type: ignore[attr-defined]
        metafunc.parametrize(scope, parameters)


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
    _share_keywords(item, share)
    _share_markers_and_name(item, share)
    if not item.stash._storage and type(item.stash) is pytest.Stash:  # type: ignore[attr-defined]
        item.stash = item._store = share.stash  # type: ignore[attr-defined]
    if not item._report_sections:  # type: ignore[attr-defined]
        item._report_sections = EMPTY_UNTIL_RUN  # type: ignore[attr-defined]
    if not item.user_properties:
        item.user_properties = EMPTY_UNTIL_RUN  # type: ignore[assignment]


def _share_ids(item: pytest.Item, share: CollectionShare) -> None:
    """One copy of the node id's names and of the parameter id (pytest 9's NodeId)."""
    node_id = getattr(item, "_id", None)
    if not dataclasses.is_dataclass(node_id) or not isinstance(getattr(node_id, "names", None), tuple):
        return
    names = share.names.setdefault(node_id.names, node_id.names)
    object.__setattr__(node_id, "names", names)  # equal values (its hash unchanged), one copy: no new NodeId
    if isinstance(node_id.params, str):
        object.__setattr__(node_id, "params", share.param(node_id.params))
    uncached = _uncached_node_id(type(node_id))
    if uncached is not None:
        object.__setattr__(node_id, "_str_cache", None)
        object.__setattr__(node_id, "__class__", uncached)


@functools.cache
def _uncached_node_id(node_id_type: type) -> type | None:
    """pytest's NodeId keeps its string once made: 0.1 kB an item once every node id is listed (``-q``, an xdist
    worker's collection). This one makes it again when asked until the items run (``keep_node_ids``); equal to and
    hashed as pytest's own, and shown with its name."""
    if "_str_cache" not in getattr(node_id_type, "__slots__", ()):
        return None

    class UncachedNodeId(node_id_type):  # type: ignore[valid-type,misc]
        __slots__ = ()

        def __str__(self) -> str:
            text = "::".join((self.path, *self.names))
            return text if self.params is None else f"{text}[{self.params}]"

        def __eq__(self, other: object) -> bool:
            if isinstance(other, node_id_type):
                return (self.path, self.names, self.params) == (other.path, other.names, other.params)
            return NotImplemented

        __hash__ = node_id_type.__hash__

    UncachedNodeId.__name__ = UncachedNodeId.__qualname__ = node_id_type.__name__
    return UncachedNodeId


def keep_node_ids(items: list[pytest.Item]) -> None:
    """Before the first item runs: every item's node id keeps its string again once made, as pytest's does (plugins
    may key an item by its node id string's identity while it runs: allure-pytest does)."""
    for item in items:
        node_id = getattr(item, "_id", None)
        base = type(node_id).__mro__[1]
        if type(node_id) is _uncached_node_id(base):
            object.__setattr__(node_id, "__class__", base)


def _share_keywords(item: pytest.Item, share: CollectionShare) -> None:
    """The item's keywords as its name, the keywords of its test function (one dict for all items that have the
    same) and its parameter id, when that is all they hold (``WaitingKeywords``)."""
    keywords, name = item.keywords, item.name
    params = getattr(getattr(item, "callspec", None), "id", None)
    if type(keywords) is not NodeKeywords or not isinstance(params, str) or params == name:
        return
    markers = keywords._markers  # type: ignore[attr-defined]
    if next(iter(markers), None) != name or next(reversed(markers), None) != params or len(markers) < 2:
        return
    common = {key: value for key, value in markers.items() if key != name and key != params}
    if len(common) != len(markers) - 2:
        return
    key = tuple((word, id(value)) for word, value in common.items())
    keywords._markers = share.keywords.setdefault(key, (common, NO_KEYWORDS))  # type: ignore[attr-defined]  # one pair
    keywords.__class__ = WaitingKeywords


NO_KEYWORDS: dict[str, Any] = {}  # the keywords added after the parameter id while items wait: none (never written)


class WaitingKeywords(NodeKeywords):  # type: ignore[misc]  # pytest marks NodeKeywords final for its users
    """An item's keywords as pytest made them (its name, its test function's keywords, its parameter id, the
    markers added since), held as the name and parameter id the item keeps anyway and two dicts shared by the items
    of a function (the keywords before and after the parameter id); the first write gives the item its own dict
    again (a plain ``NodeKeywords``)."""

    __slots__ = ()

    def _own(self) -> dict[str, Any]:
        node, (before, after) = self.node, self._markers
        return {node.name: True, **before, node.callspec.id: True, **after}

    def __getitem__(self, key: str) -> Any:
        node, (before, after) = self.node, self._markers
        if key == node.name or key == node.callspec.id:
            return True
        if key in before:
            return before[key]
        if key in after:
            return after[key]
        if self.parent is None:
            raise KeyError(key)
        return self.parent.keywords[key]

    def __contains__(self, key: object) -> bool:
        node, (before, after) = self.node, self._markers
        return key == node.name or key == node.callspec.id or key in before or key in after or (
            self.parent is not None and key in self.parent.keywords)

    def __iter__(self) -> Iterator[str]:
        own = self._own()
        yield from own
        if self.parent is not None:
            yield from (keyword for keyword in self.parent.keywords if keyword not in own)

    def __setitem__(self, key: str, value: Any) -> None:
        self._markers = self._own()
        self.__class__ = NodeKeywords
        self._markers[key] = value

    def update(self, other: Any = (), **kwds: Any) -> None:  # type: ignore[override]
        self._markers = self._own()
        self.__class__ = NodeKeywords
        self._markers.update(other)
        self._markers.update(kwds)


def add_markers(item: pytest.Item, markers: list[pytest.MarkDecorator], share: CollectionShare) -> None:
    """``item.add_marker(marker)`` for each marker (appended), with the items of a test function that wait to run
    sharing the markers and keywords this gives them (the same markers added to every item of a check: Allure's
    labels); any other item gets them one by one."""
    keywords, marks = item.keywords, item.own_markers
    if type(item) is not WaitingFunction or type(keywords) is not WaitingKeywords or not isinstance(marks, tuple):
        for marker in markers:
            item.add_marker(marker)
        return
    if any(marker.name in (item.name, item.callspec.id) for marker in markers):  # type: ignore[attr-defined]
        for marker in markers:  # a marker named as the item's own keyword: pytest's own order of words
            item.add_marker(marker)
        return
    before, after = keywords._markers  # type: ignore[attr-defined]
    key = (id(marks), id(before), id(after), *map(id, markers))
    found = share.added.get(key)
    if found is None:
        before, after = dict(before), dict(after)
        for marker in markers:
            (before if marker.name in before else after)[marker.name] = marker.mark  # a word once, where it was
        found = share.added[key] = (marks + tuple(marker.mark for marker in markers), (before, after), markers)
    item.own_markers, keywords._markers = found[0], found[1]  # type: ignore[attr-defined]


class WaitingFunction(pytest.Function):  # type: ignore[misc]  # pytest marks Function final for its users
    """A check item while it waits to run, as pytest made it but for two parts it keeps as its test function's: its
    markers (one tuple for the items of a function that have the same) and its name (made again from the test
    function's name and the parameter id when read). Adding a marker gives the item its own list again; its name is
    its own again when written. Named like pytest's class, so reprs and the ``--collect-only`` tree read the same."""

    @property  # type: ignore[override]
    def name(self) -> str:
        return f"{self.originalname}[{self._id.params}]"

    @name.setter
    def name(self, value: str) -> None:
        own_markers(self)
        self.__class__ = pytest.Function  # a plain item again, with its own name
        self.name = value

    def add_marker(self, marker: str | pytest.MarkDecorator, append: bool = True) -> None:
        own_markers(self)
        super().add_marker(marker, append)


WaitingFunction.__name__ = WaitingFunction.__qualname__ = "Function"


def own_markers(item: pytest.Item) -> None:
    """Give the item its own list of markers again (pytest and plugins append to it)."""
    if isinstance(item.own_markers, tuple):
        item.own_markers = list(item.own_markers)


def _share_markers_and_name(item: pytest.Item, share: CollectionShare) -> None:
    """Make a plain check item a ``WaitingFunction``: its markers one tuple per distinct list, its name dropped
    where it is exactly its test function's name and parameter id."""
    if type(item) is not pytest.Function:
        return
    params = getattr(getattr(item, "_id", None), "params", None)
    if not isinstance(params, str) or item.name != f"{item.originalname}[{params}]":
        return
    markers = item.own_markers
    if type(markers) is list:
        key = tuple(map(id, markers))
        item.own_markers = share.markers.setdefault(key, tuple(markers))  # type: ignore[assignment]
    item.name = None  # type: ignore[assignment]  # set, not deleted, and __dict__ never read: CPython keeps the
    item.__class__ = WaitingFunction  # item's attributes as values beside its class's shared keys, with no dict


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
    own_markers(item)
    try:
        yield
    finally:
        item._report_sections = EMPTY_UNTIL_RUN  # type: ignore[attr-defined]  # each report copied its sections
        if not item.user_properties:
            item.user_properties = EMPTY_UNTIL_RUN  # type: ignore[assignment]
