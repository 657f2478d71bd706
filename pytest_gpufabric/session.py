"""Everything one pytest process knows about the cluster under test: inventory, profile, transport."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_gpufabric.catalog import Catalog
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.recording.scrub import Scrubber
from pytest_gpufabric.scheduling.pair_option import PairPolicy
from pytest_gpufabric.scheduling.rerun import FailedPairs
from pytest_gpufabric.targets import Target, node_pair_targets, targets_for_scope
from pytest_gpufabric.transport.base import CommandResult, Transport

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Inventory, Node
    from pytest_gpufabric.measuring.engine import RoundEngine
    from pytest_gpufabric.measuring.mesh import MeshEngine


@dataclass
class FabricSession:
    """Per-process state, created by the plugin at configure time; the transport opens lazily, so
    collection (and the xdist controller) never touches the network."""

    inventory: Inventory
    profiles: dict[str, Profile]
    catalog: Catalog
    make_transport: Callable[[], Transport]
    scrubber: Scrubber = field(default_factory=Scrubber)  # every artifact leaving the run goes through it
    command_timeout_s: float | None = None
    pair_policy: PairPolicy = field(default_factory=lambda: PairPolicy("all"))
    node_pairs: tuple[tuple[str, str], ...] = ()  # the selected node pairs, in round order
    rerun: FailedPairs | None = None  # --rerun-failed-pairs: only these NIC pairs are measured
    fanout: int | None = None  # --fanout: NIC pairs measured at once (None: all of a round)
    round_engine: RoundEngine | None = None  # set by the scheduling hooks: measures whole rounds of pair items
    mesh_engine: MeshEngine | None = None  # set by the scheduling hooks: measures the mesh checks
    _transport: Transport | None = None
    _cache: dict[tuple[str, str], CommandResult] = field(default_factory=dict)
    parsed: dict[tuple[str, str, str], tuple[str, Any]] = field(default_factory=dict)  # facts of cached outputs
    _targets: dict[str, tuple[list[Target], list[str]]] = field(default_factory=dict)
    _transport_lock: threading.Lock = field(default_factory=threading.Lock)

    def targets(self, scope: str) -> tuple[list[Target], list[str]]:
        """The targets of ``scope`` and their ids, built once per process. Pair scopes hold the selected node
        pairs only, in round order (a rerun of failed NIC pairs: only the node pairs that hold one)."""
        if scope not in self._targets:
            if scope in ("node_pair", "nic_pair"):
                pairs = self.node_pairs if self.rerun is None else self.rerun.node_pairs(self.node_pairs)
                node_pairs = node_pair_targets(self.inventory, pairs)
                found: list[Target] = list(node_pairs) if scope == "node_pair" else [
                    rail for pair in node_pairs for rail in pair.rail_pairs()]
            else:
                found = targets_for_scope(self.inventory, scope)
            self._targets[scope] = (found, [target.id for target in found])
        return self._targets[scope]

    @property
    def profile(self) -> Profile:
        """The site's profile."""
        return self.profiles[self.inventory.profile]

    def profile_for(self, nodes: tuple[Node, ...]) -> Profile:
        """The profile judging an item on ``nodes``: the first node's own profile, else the site's."""
        own = next((node.profile for node in nodes if node.profile), None)
        return self.profiles[own] if own else self.profile

    @property
    def transport(self) -> Transport:
        with self._transport_lock:  # NIC pairs are measured from several threads
            if self._transport is None:
                self._transport = self.make_transport()
            return self._transport

    def timeout_for(self, node: str, timeout_s: float | None) -> float:
        if timeout_s is not None:
            return timeout_s
        if self.command_timeout_s is not None:
            return self.command_timeout_s
        return self.inventory.machine(node).ssh.command_timeout_s

    def run(self, node: str, command: str, timeout_s: float | None, cached: bool, item: str | None) -> CommandResult:
        """Run through the transport; ``cached`` read-only facts are fetched once per node per process."""
        key = (node, command)
        if cached and key in self._cache:
            return self._cache[key]
        result = self.transport.run(node, command, self.timeout_for(node, timeout_s), item=item)
        if cached:
            self._cache[key] = result
        return result

    def connect(self, node: str) -> None:
        """Open the node's connection now (so an unreachable node is a setup error of its items)."""
        connect = getattr(self.transport, "connect", None)
        if connect is not None:
            connect(node)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
