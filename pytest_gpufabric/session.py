"""Everything one pytest process knows about the cluster under test: inventory, profile, transport."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_gpufabric.catalog import Catalog
from pytest_gpufabric.errors import GpufabricError, RecordingError, TransportError
from pytest_gpufabric.exclusive.down import NodeHealth
from pytest_gpufabric.exclusive.leases import NodeGuard
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
    select_node_pairs: Callable[[], Sequence[tuple[str, str]]] = tuple  # the selected node pairs, in round order
    pair_checks: int = 0  # node-pair check tests in the paths collected (``collection_estimate``)
    rerun: FailedPairs | None = None  # --rerun-failed-pairs: only these NIC pairs are measured
    fanout: int | None = None  # --fanout: NIC pairs measured at once (None: all of a round)
    round_engine: RoundEngine | None = None  # set by the scheduling hooks: measures whole rounds of pair items
    health: NodeHealth | None = None  # set by the scheduling hooks: nodes marked down for the rest of the run
    guard_of: Callable[[str, Sequence[str]], NodeGuard] | None = None  # node, resources -> a traffic command's guard
    held: dict[str, tuple[str, ...]] = field(default_factory=dict)  # item -> the resources it holds while it runs
    mesh_engine: MeshEngine | None = None  # set by the scheduling hooks: measures the mesh checks
    _guarded_nodes: set[str] = field(default_factory=set)  # nodes this process sent traffic commands to
    _transport: Transport | None = None
    _cache: dict[tuple[str, str], CommandResult] = field(default_factory=dict)
    parsed: dict[tuple[str, str, str], tuple[str, Any]] = field(default_factory=dict)  # facts of cached outputs
    _targets: dict[str, tuple[list[Target], list[str]]] = field(default_factory=dict)
    _transport_lock: threading.Lock = field(default_factory=threading.Lock)
    _node_pairs: tuple[tuple[str, str], ...] | None = None

    @property
    def node_pairs(self) -> tuple[tuple[str, str], ...]:
        """The selected node pairs, listed when first asked: a run without node-pair checks never lists them (the
        policy ``all`` of 20,000 nodes is 200 million pairs; with such checks ``--max-items`` bounds them)."""
        if self._node_pairs is None:
            self._node_pairs = tuple(self.select_node_pairs())
        return self._node_pairs

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

    def run(self, node: str, command: str, timeout_s: float | None, cached: bool, item: str | None,
            guard: NodeGuard | None = None) -> CommandResult:
        """Run through the transport; ``cached`` read-only facts are fetched once per node per process. A node
        marked down is refused at once; a traffic command (``guard``, or one of an item holding resources) runs
        with its node-side PID file and leases."""
        key = (node, command)
        if cached and key in self._cache:
            return self._cache[key]
        if guard is None and item is not None and self.guard_of is not None and item in self.held:
            guard = self.guard_of(node, self.held[item])
        if guard is not None:
            self._guarded_nodes.add(node)
        result = self._watched(node, lambda: self.transport.run(node, command, self.timeout_for(node, timeout_s),
                                                                item=item, guard=guard))
        if cached:
            self._cache[key] = result
        return result

    def _watched(self, node: str, call: Callable[[], Any]) -> Any:
        """``call`` on ``node``, refused when the node is down; its transport failures counted (not a replay's)."""
        if self.health is None:
            return call()
        self.health.refuse_if_down(node)
        try:
            result = call()
        except RecordingError:
            raise
        except TransportError as exc:
            self.health.failed(node, exc.reason)
            raise
        self.health.succeeded(node)
        return result

    def connect(self, node: str) -> None:
        """Open the node's connection now (so an unreachable node is a setup error of its items)."""
        connect = getattr(self.transport, "connect", None)
        if connect is not None:
            self._watched(node, lambda: connect(node))
        elif self.health is not None:
            self.health.refuse_if_down(node)

    def stop_traffic(self, run_id: str) -> list[str]:
        """Stop the run's traffic commands on every node this process sent one to, all nodes at once; the nodes
        that could not be reached (their commands end by their own bound)."""
        nodes = sorted(self._guarded_nodes)
        if not nodes or self._transport is None:
            return []

        def stop(node: str) -> str | None:
            try:
                self.transport.stop_run(node, run_id)
            except GpufabricError as exc:
                return f"{node}: {exc}"
            return None
        with ThreadPoolExecutor(max_workers=min(16, len(nodes)), thread_name_prefix="gpufabric-stop") as pool:
            return [failed for failed in pool.map(stop, nodes) if failed is not None]

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
