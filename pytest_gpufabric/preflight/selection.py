"""Which checks a run would select (``-k`` and ``-m`` as pytest evaluates them) and, for each node, those that
apply to it: the profile's ``not_applicable``, the catalog's ``applies`` and scope (a NIC check needs a NIC, a
multi-node check two nodes). Decided per test function and node, without collecting the run's items.

``-k`` matches, as in pytest, a case-insensitive part of the names of an item and its parents: the test function
(and ``function[node]``), its file, ``suites``, ``acceptance``, its markers, and the node's name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from _pytest.mark.expression import Expression

from pytest_gpufabric.catalog import Catalog
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.inventory import Inventory, Node
from pytest_gpufabric.suite_index import ImplementedCheck, implemented_checks

MULTI_NODE_SCOPES = frozenset({"node_pair", "nic_pair", "cluster"})


@dataclass(frozen=True)
class SelectedCheck:
    check_id: str
    test: str  # file::function
    names: frozenset[str]  # what -k matches, before the node's own names
    markers: frozenset[str]


def _compiled(expression: str | None, option: str) -> Expression | None:
    if not expression:
        return None
    try:
        return Expression.compile(expression)
    except SyntaxError as exc:  # what pytest (8.4+) raises for a malformed -k or -m expression
        raise UsageError(f"{option}: wrong expression passed to '{option}': {expression}: {exc}") from None


def _matcher(names: frozenset[str]) -> Callable[..., bool]:
    lowered = [name.lower() for name in names]
    return lambda subname, **kwargs: not kwargs and any(subname.lower() in name for name in lowered)


class Selection:
    """The checks of the suite a run with ``keyword`` (-k) and ``markexpr`` (-m) selects, node by node."""

    def __init__(self, suite_dir: Path, keyword: str | None = None, markexpr: str | None = None) -> None:
        self.keyword = _compiled(keyword, "-k")
        mark = _compiled(markexpr, "-m")
        found = implemented_checks(suite_dir)
        self.checks = [self._selected(check) for check in found]
        self.checks = [c for c in self.checks if mark is None or mark.evaluate(lambda name, **kw: not kw and name in c.markers)]

    @staticmethod
    def _selected(check: ImplementedCheck) -> SelectedCheck:
        file, function = check.test.split("::")
        return SelectedCheck(check.check_id, check.test, frozenset({"suites", "acceptance", file, function, *check.markers}),
                             frozenset(check.markers))

    def on_node(self, check: SelectedCheck, node: Node) -> bool:
        """Whether ``-k`` selects ``check``'s items on ``node``."""
        if self.keyword is None:
            return True
        function = check.test.split("::")[1]
        return self.keyword.evaluate(_matcher(check.names | {node.name, f"{function}[{node.name}]"}))


def applies_to(check_id: str, node: Node, inventory: Inventory, catalog: Catalog, profile: Profile) -> bool:
    """Whether ``check_id`` has an item on ``node`` that is not skipped (profile, catalog applies, scope)."""
    if check_id in profile.not_applicable:
        return False
    spec = catalog.get(check_id)
    if spec.applies and not set(spec.applies) & node.platform_tags:
        return False
    scope = spec.scope
    if scope == "gpu" and not node.gpus:
        return False
    if scope in ("nic", "nic_pair", "switch_port") and not node.nics:
        return False
    if scope == "switch_port":
        return any(nic.switch_port for nic in node.nics)
    if scope == "nic_gpu_pair" and not any(nic.gpu is not None for nic in node.nics):
        return False
    return not (scope in MULTI_NODE_SCOPES and len(inventory.nodes) < 2)


def _node_kind(node: Node, profile: Profile) -> tuple[object, ...]:
    """What decides which checks apply to a node, besides its name: the checks of 1,024 alike nodes are worked
    out once."""
    return (profile.name, node.platform_tags, bool(node.gpus), bool(node.nics), any(n.switch_port for n in node.nics),
            any(n.gpu is not None for n in node.nics))


def checks_by_node(selection: Selection, inventory: Inventory, catalog: Catalog,
                   profile_of: Callable[[Node], Profile]) -> dict[str, list[str]]:
    """Node name -> the check ids a run with this selection would judge on it (in the suite's order)."""
    by_kind: dict[tuple[object, ...], list[SelectedCheck]] = {}
    found = {}
    for node in inventory.nodes:
        profile = profile_of(node)
        kind = _node_kind(node, profile)
        if kind not in by_kind:
            by_kind[kind] = [c for c in selection.checks if applies_to(c.check_id, node, inventory, catalog, profile)]
        found[node.name] = list(dict.fromkeys(c.check_id for c in by_kind[kind] if selection.on_node(c, node)))
    return found


def selected_ids(selection: Selection) -> Sequence[str]:
    return list(dict.fromkeys(check.check_id for check in selection.checks))
