"""The run's plan: every item the inventory and the profiles require, before any selection (``-k``, ``-m``,
``--lf``, ``--deselect``, file arguments, a ``--pair-policy`` given only on the command line).

An item is required when its check is one its profile holds expectations for (the profile judging an item is
its first node's own, else the site's), the profile does not declare it ``not_applicable``, and the catalog's
``applies`` covers every machine of the item. Pair checks cover the node pairs of the pair policy the site
declares in ``test_plan`` (default: all). Items are named as the suite names them (``node01/bnxt_re0``,
``node01->node02``, ``cluster-amd-alltoall``): the verdict compares them with the recorded items.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ClusterShell.NodeSet import NodeSet

from pytest_gpufabric.checks.collectives import SWEEP
from pytest_gpufabric.scheduling.pair_option import PairPolicy, parse_pair_policy, selected_node_pairs
from pytest_gpufabric.targets import Target, node_pair_targets, targets_for_scope

if TYPE_CHECKING:
    from pytest_gpufabric.catalog import Catalog, CheckSpec
    from pytest_gpufabric.expectations import Profile
    from pytest_gpufabric.inventory import Inventory, Node

PLAN_SCHEMA = 1
PAIR_SCOPES = ("node_pair", "nic_pair")
# Checks whose test is parametrized beyond its target: one item per variant (pytest's id: target-variant).
SUITE_VARIANTS: dict[str, tuple[str, ...]] = {"COLL-005": SWEEP}


def fold(names: Any) -> str:
    """Names folded as a nodeset (``node[01-04,07]``); text that is not a node name is kept as it is."""
    names = sorted(set(names))
    try:
        return str(NodeSet.fromlist(names)) if names else ""
    except Exception:  # noqa: BLE001 - ClusterShell raises its own parse errors for odd names
        return ",".join(names)


@dataclass(frozen=True)
class NotRequired:
    """Items of a check its profile or the catalog leaves out, with the documented reason."""

    check_id: str
    reason: str
    items: int
    nodes: str  # folded


@dataclass
class Plan:
    """What a run is required to cover (plain data: written as ``plan.json`` next to the results)."""

    pair_policy: str
    checks: dict[str, dict[str, Any]]  # check id -> {"scope", "title", "items": [...]}
    not_required: list[NotRequired]
    nodes: dict[str, dict[str, Any]]  # node -> {"profile", "platform", "gpus", "nics": [[name, rail], ...]}
    switches: dict[str, dict[str, Any]]  # switch -> {"os", "ports"}
    test_plan: str | None = None
    site: str = ""
    sign_off: list[list[str]] = field(default_factory=list)  # [role, name] of each signatory
    _pairs: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    @property
    def required_count(self) -> int:
        return sum(len(check["items"]) for check in self.checks.values())

    def nic_pairs(self, node_pair: str) -> tuple[str, ...]:
        """The same-rail NIC pairs of ``a->b`` (as the node-pair item measures them)."""
        found = self._pairs.get(node_pair)
        if found is None:
            a, _, b = node_pair.partition("->")
            by_rail = {rail: nic for nic, rail in self.nodes.get(b, {}).get("nics", ())}
            found = tuple(f"{a}/{nic}->{b}/{by_rail[rail]}"
                          for nic, rail in sorted(self.nodes.get(a, {}).get("nics", ()), key=lambda n: n[1])
                          if rail in by_rail)
            self._pairs[node_pair] = found
        return found

    def to_plain(self) -> dict[str, Any]:
        return {"schema": PLAN_SCHEMA, "site": self.site, "test_plan": self.test_plan, "pair_policy": self.pair_policy,
                "checks": self.checks, "nodes": self.nodes, "switches": self.switches,
                "not_required": [vars(n) for n in self.not_required], "sign_off": self.sign_off}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Plan:
        return cls(pair_policy=str(data.get("pair_policy", "all")), checks=dict(data.get("checks", {})),
                   not_required=[NotRequired(**n) for n in data.get("not_required", ())],
                   nodes=dict(data.get("nodes", {})), switches=dict(data.get("switches", {})),
                   test_plan=data.get("test_plan"), site=str(data.get("site", "")),
                   sign_off=[list(map(str, person)) for person in data.get("sign_off", ())])


def write_plan(plan: Plan, path: Path) -> None:
    path.write_text(json.dumps(plan.to_plain(), sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")


def read_plan(path: Path) -> Plan | None:
    if not path.is_file():
        return None
    try:
        return Plan.from_plain(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError, KeyError):
        return None


def site_pair_policy(inventory: Inventory, cluster: Path) -> PairPolicy:
    """The pair policy of the site's test plan; a ``list:FILE`` is relative to site.yaml."""
    policy = parse_pair_policy(inventory.test_plan.pair_policy)
    if policy.path is not None and not policy.path.is_absolute():
        return PairPolicy(policy.kind, policy.rounds, cluster.parent / policy.path)
    return policy


class _Requirement:
    """Whether a check is required of a target: decided once per check and kind of the target's machines."""

    def __init__(self, inventory: Inventory, profiles: dict[str, Profile]) -> None:
        self.site_profile = profiles[inventory.profile]
        self.profiles = profiles
        self._decided: dict[tuple[str, tuple[Any, ...]], str | None] = {}

    def _profile(self, nodes: tuple[Node, ...]) -> Profile:
        own = next((node.profile for node in nodes if node.profile), None)
        return self.profiles[own] if own else self.site_profile

    def why_not(self, spec: CheckSpec, target: Target) -> str | None:
        """None when required; else the documented reason (profile or catalog), or "" for a check the item's
        profile holds no expectations for (outside the verdict's scope, not listed)."""
        kinds = target_kinds(target)
        key = (spec.id, kinds)
        if key not in self._decided:
            self._decided[key] = self._decide(spec, target.nodes, [tags for _, tags in kinds])
        return self._decided[key]

    def _decide(self, spec: CheckSpec, nodes: tuple[Node, ...], tags: list[frozenset[str]]) -> str | None:
        profile = self._profile(nodes)
        if spec.id in profile.not_applicable:
            return f"not applicable in profile {profile.name}: {profile.not_applicable[spec.id]}"
        if spec.id not in profile.expectations:
            return ""
        for machine_tags in tags:
            if spec.applies and not machine_tags.intersection(spec.applies):
                return f"applies to {'/'.join(spec.applies)}; not to {'/'.join(sorted(machine_tags)) or 'untagged'} machines"
        return None


MachineKind = tuple["str | None", frozenset[str]]  # a node's or switch's profile and platform tags


def _machines(target: Target) -> tuple[Any, ...]:
    switch = getattr(target, "switch", None)
    return (switch,) if switch is not None else target.nodes


def _machine_kind(machine: Any) -> MachineKind:
    return getattr(machine, "profile", None), machine.platform_tags


def target_kinds(target: Target) -> tuple[MachineKind, ...]:
    """What decides whether a check is required of a target: the profile and platform of each of its machines."""
    return tuple(_machine_kind(machine) for machine in _machines(target))


@dataclass
class _ScopeTargets:
    """The targets of one scope by kind (``target_kinds``): a site of 1,024 nodes has 523,776 node pairs, of a
    handful of kinds, and each of a dozen pair checks is decided once per kind, not once per node pair."""

    ids: list[str]
    kind_of: list[int]  # per target, the index of its kind in ``samples``
    samples: list[Target]  # the first target of each kind

    @classmethod
    def of(cls, targets: list[Target]) -> _ScopeTargets:
        index: dict[tuple[MachineKind, ...], int] = {}
        machine_kinds: dict[int, MachineKind] = {}  # the same machines recur in every pair: each read once

        def kind(machine: Any) -> MachineKind:
            known = machine_kinds.get(id(machine))
            if known is None:
                known = machine_kinds[id(machine)] = _machine_kind(machine)
            return known
        samples: list[Target] = []
        kind_of = []
        for target in targets:
            key = tuple(kind(machine) for machine in _machines(target))
            found = index.get(key)
            if found is None:
                found = index[key] = len(samples)
                samples.append(target)
            kind_of.append(found)
        return cls([target.id for target in targets], kind_of, samples)


def _targets(inventory: Inventory, scope: str, node_pairs: list[tuple[str, str]]) -> _ScopeTargets:
    if scope in PAIR_SCOPES:
        return _ScopeTargets.of(list(node_pair_targets(inventory, node_pairs)))
    return _ScopeTargets.of(targets_for_scope(inventory, scope))


def target_of_item(check_id: str, item: str) -> str:
    """The target of a planned item (``cluster-amd-alltoall`` -> ``cluster-amd`` for COLL-005)."""
    for variant in SUITE_VARIANTS.get(check_id, ()):
        if item.endswith(f"-{variant}"):
            return item[: -len(variant) - 1]
    return item


def _item_ids(check_id: str, target_ids: list[str]) -> list[str]:
    variants = SUITE_VARIANTS.get(check_id)
    if not variants:
        return target_ids
    return [f"{target_id}-{variant}" for target_id in target_ids for variant in variants]


def build_plan(inventory: Inventory, profiles: dict[str, Profile], catalog: Catalog, policy: PairPolicy) -> Plan:
    """The plan of a run on ``inventory``: required items per check, and what is left out and why."""
    node_pairs = selected_node_pairs(policy, inventory)
    requirement = _Requirement(inventory, profiles)
    checks: dict[str, dict[str, Any]] = {}
    left_out: dict[tuple[str, str], list[str]] = {}
    by_scope: dict[str, _ScopeTargets] = {}
    for spec in catalog:
        targets = by_scope.get(spec.scope)
        if targets is None:
            targets = by_scope[spec.scope] = _targets(inventory, spec.scope, node_pairs)
        whys = [requirement.why_not(spec, sample) for sample in targets.samples]
        if all(why is None for why in whys):
            required = list(targets.ids)
        else:
            required = []
            for target_id, kind in zip(targets.ids, targets.kind_of):
                why = whys[kind]
                if why is None:
                    required.append(target_id)
                elif why:
                    left_out.setdefault((spec.id, why), []).append(target_id)
        items = _item_ids(spec.id, required)
        if items:
            checks[spec.id] = {"scope": spec.scope, "title": spec.title, "items": items}
    not_required = [NotRequired(check_id, reason, len(ids), fold({i.split("/", 1)[0].split("->", 1)[0] for i in ids}))
                    for (check_id, reason), ids in sorted(left_out.items())]
    return Plan(pair_policy=policy.describe(), checks=checks, not_required=not_required,
                nodes=_node_table(inventory), switches=_switch_table(inventory),
                test_plan=inventory.test_plan.reference, site=inventory.site,
                sign_off=[[role, name] for role, name in inventory.test_plan.sign_off])


def _node_table(inventory: Inventory) -> dict[str, dict[str, Any]]:
    return {node.name: {"profile": node.profile or inventory.profile,
                        "platform": f"{node.platform.gpu_vendor} {node.platform.gpu_model} {node.platform.deployment}",
                        "gpus": len(node.gpus), "nics": [[nic.name, nic.rail] for nic in node.nics]}
            for node in inventory.nodes}


def _switch_table(inventory: Inventory) -> dict[str, dict[str, Any]]:
    ports = {switch.name: 0 for switch in inventory.switches}
    for node in inventory.nodes:
        for nic in node.nics:
            if nic.switch in ports and nic.switch_port:
                ports[nic.switch] += 1
    return {switch.name: {"os": switch.os, "ports": ports[switch.name]} for switch in inventory.switches}
