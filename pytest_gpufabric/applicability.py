"""Whether a check applies to an item's target: the profile's ``not_applicable`` and the catalog's ``applies``.

Decided once per check and kind of machine (its profile and platform tags), not once per item: the 400,000
items of a homogeneous 256-node cluster have one kind of node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from pytest_gpufabric.targets import SwitchPortTarget, SwitchTarget

if TYPE_CHECKING:
    from pytest_gpufabric.catalog import CheckSpec
    from pytest_gpufabric.inventory import Node
    from pytest_gpufabric.session import FabricSession

GUEST = "guest"  # the deployment tag of another hypervisor's guest
Kind = tuple[str | None, frozenset[str]]  # (the machine's own profile, its platform tags)
Verdict = tuple[str | None, frozenset[str] | None]  # (the profile's reason, the tags that do not match `applies`)


class Applicability:
    """Skip reasons of one run's items (see the module docstring)."""

    def __init__(self, session: FabricSession) -> None:
        self._session = session
        self._node_kinds: dict[str, Kind] = {}
        self._verdicts: dict[tuple[str, tuple[Kind, ...]], Verdict] = {}
        kinds = {self._node_kind(node) for node in session.inventory.nodes}
        self._one_kind = (kinds.pop(),) if len(kinds) == 1 else None  # every node alike: a node's kind is known

    def reason(self, spec: CheckSpec, target: Any) -> str | None:
        """Why ``spec`` does not apply to ``target``, or None when it does."""
        key = (spec.id, self._kinds(target))
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = self._decide(spec, key[1])
        profile_reason, tags = verdict
        if profile_reason:
            return f"{spec.id} not applicable in this profile: {profile_reason}"
        if tags is not None:
            if GUEST in tags and spec.guest:
                return f"{spec.id} in a guest: {spec.guest}"
            # the target is the item's own id: one reason (and one shared marker) for every item of a kind
            return f"{spec.id} applies to {'/'.join(spec.applies)}; not to {'/'.join(sorted(tags)) or 'untagged'} machines"
        return None

    def _kinds(self, target: Any) -> tuple[Kind, ...]:
        if isinstance(target, (SwitchTarget, SwitchPortTarget)):
            return ((None, frozenset({target.switch.os})),)
        nodes = target.nodes
        if self._one_kind is not None and nodes:
            return self._one_kind  # the verdict on nodes of one kind is the verdict on one of them
        return tuple(self._node_kind(node) for node in nodes)

    def _node_kind(self, node: Node) -> Kind:
        kind = self._node_kinds.get(node.name)
        if kind is None:
            kind = self._node_kinds[node.name] = (node.profile, node.platform_tags)
        return kind

    def _decide(self, spec: CheckSpec, kinds: tuple[Kind, ...]) -> Verdict:
        own = next((profile for profile, _ in kinds if profile), None)
        profile = self._session.profiles[own] if own else self._session.profile
        profile_reason = profile.not_applicable.get(spec.id)
        if profile_reason:
            return profile_reason, None
        if spec.applies:
            for _, tags in kinds:
                if not tags.intersection(spec.applies):
                    return None, tags
        return None, None


class NotApplicable(pytest.skip.Exception):
    """Raised by a check that finds, from the inventory alone, that it does not apply to its item (a node pair
    mixing GPU vendors, a cluster of one node): a documented skip, which the verdict does not count as missing.
    Any other skip of a required item (the soak not asked for) leaves the item missing."""


def not_applicable(reason: str) -> NoReturn:
    raise NotApplicable(reason)
