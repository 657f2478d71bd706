"""The mesh engine: a mesh check measured once for the whole run, every node probing all its peers at once.

A mesh check (NET-001, NET-002, HOST-008: the catalog's ``measured: mesh``) keeps one item per node pair and one
verdict per item, but measuring is decoupled from the items, as for the pair sweep: the first process of the run
whose item asks becomes the check's driver (a lock in the run's shared directory). It sends every node its one
bounded command at once (``MeshSpec.command``: all its peers, from all its NICs; ``--fanout=N``: N nodes at a time,
in waves), parses each node's output there (``MeshSpec.facts``), and stores each wave's results for every process
of the run. Each item then judges its own probes from the outputs of its two nodes (both ways). Under xdist the
other processes wait for the waves they need and take over when the driver's session ends first.

The probes depend on the inventory and the pair policy only, never on which items were selected (``-k``,
``--lf``): the same run of the same site sends the same commands, so recordings replay whatever is selected.
Commands run under the name ``<CHECK> mesh`` (deterministic recordings). ICMP and ssh probes need no NIC of
their own: the mesh holds no NIC locks, and its items run before the traffic items (``scheduling``).

Once the run stops (``stop_reason`` gives a reason), no further wave starts: the waves left are stored with every
node not measured and the stop's reason, so the items waiting for them error at once. A node's command is bounded
on its node, and a running one is stopped with the run's traffic (scheduling gives it a PID file there).
"""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from filelock import FileLock, Timeout

from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.exclusive.locks import lock_file_name
from pytest_gpufabric.measuring.rails import error_kind
from pytest_gpufabric.transport.base import CommandResult

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Node

NodeRun = Callable[[str, str, float, str], CommandResult]  # node, command, timeout, item name
StopReason = Callable[[], "str | None"]  # why the run stopped, or None while it goes on
POLL_S = 0.05


class MeshSpec(Protocol):
    """What a mesh check runs on one node and what it reads from the output (pure, per check)."""

    def command(self, node: Node, peers: Sequence[Node]) -> tuple[str, float]:
        """The node's one command probing all ``peers``, and its bound (seconds, on the node)."""
        ...

    def facts(self, node: Node, result: CommandResult) -> Any:
        """What the check judges, read from the node's output (plain data: it is stored for every process)."""
        ...

    def seconds(self, node: Node, peers: Sequence[Node]) -> float | None:
        """How long the node's probes take, when known (the estimate)."""
        ...

    @property
    def both_ways(self) -> bool:
        """Whether each node of a pair probes the other (else the first node of the pair probes the second)."""
        ...


@dataclass(frozen=True)
class NodeMesh:
    """One node's part of a mesh: its command's result and facts, or why it has none."""

    node: str
    result: CommandResult | None
    facts: Any = None
    error: str | None = None  # "<kind>: <message>" when the node's output gave no facts

    def evidence(self, check_id: str) -> CommandResult | None:
        """The node's result as an item's evidence: its output whole, its command named, not repeated (one node's
        command is judged by all its node pairs, and is as long as its list of peers; the recording holds it)."""
        if self.result is None:
            return None
        command = self.result.command
        name = f"{check_id} mesh of {self.node}: {command.count(chr(10)) + 1}-line script, {len(command)} characters"
        return replace(self.result, command=name)


@dataclass(frozen=True)
class MeshPlan:
    """A mesh check of this run: every node's peers (from the pair policy), its waves of nodes, and the
    node-pair items that judge it (node id -> its two nodes)."""

    check_id: str
    nodes: dict[str, Node]
    peers: dict[str, tuple[Node, ...]]
    waves: tuple[tuple[str, ...], ...]
    items: dict[str, tuple[str, str]]

    def __post_init__(self) -> None:
        waves = {node: index for index, wave in enumerate(self.waves, start=1) for node in wave}
        item_waves = {nodeid: max(waves.get(node, 1) for node in nodes) for nodeid, nodes in self.items.items()}
        members: dict[int, int] = {}
        for wave in item_waves.values():
            members[wave] = members.get(wave, 0) + 1
        object.__setattr__(self, "_waves", waves)
        object.__setattr__(self, "_item_waves", item_waves)
        object.__setattr__(self, "_members", members)

    def wave_of(self, node: str) -> int | None:
        """The wave a node probes in; None for a node that probes nobody (the last one of a one-way mesh)."""
        return self._waves.get(node)  # type: ignore[attr-defined,no-any-return]

    def item_wave(self, nodeid: str) -> int:
        """The wave after which an item has both its nodes' outputs (its round, for the progress lines)."""
        return self._item_waves[nodeid]  # type: ignore[attr-defined,no-any-return]

    def members(self, wave: int) -> int:
        """How many items finish with wave ``wave``."""
        return self._members.get(wave, 0)  # type: ignore[attr-defined,no-any-return]


def mesh_plan(check_id: str, nodes: Sequence[Node], node_pairs: Sequence[tuple[str, str]],
              items: dict[str, tuple[str, str]], fanout: int | None, *, both_ways: bool = True) -> MeshPlan:
    """Every node probes each node it is paired with (``both_ways``; else only the later ones in the inventory,
    as a node-pair item is oriented); nodes in inventory order, ``fanout`` a wave."""
    by_name = {node.name: node for node in nodes}
    order = {node.name: index for index, node in enumerate(nodes)}
    peers: dict[str, list[Node]] = {node.name: [] for node in nodes}
    for pair in node_pairs:
        first, second = sorted(pair, key=order.__getitem__)
        peers[first].append(by_name[second])
        if both_ways:
            peers[second].append(by_name[first])
    probing = [name for name in order if peers[name]]
    size = fanout or max(1, len(probing))
    waves = tuple(tuple(probing[start:start + size]) for start in range(0, len(probing), size))
    return MeshPlan(check_id, by_name, {name: tuple(sorted(found, key=lambda node: order[node.name])) for name, found in peers.items()},
                    waves, items)


class MeshEngine:
    """Measures the mesh checks for the items of one pytest process (see the module docstring)."""

    def __init__(self, run: NodeRun, shared_dir: Path, stop_reason: StopReason | None = None) -> None:
        self._run = run
        self._stop_reason = stop_reason or (lambda: None)
        self._shared_dir = shared_dir
        self._plans: dict[str, MeshPlan] = {}
        self._specs: dict[str, MeshSpec] = {}
        self._stored: dict[tuple[str, int], dict[str, NodeMesh]] = {}
        self._started: dict[str, float] = {}
        self._probed_s: dict[tuple[str, int], float] = {}
        self._driving: dict[str, tuple[FileLock, threading.Thread]] = {}
        self._guard = threading.Lock()
        self._closing = threading.Event()

    def plan(self, plans: Sequence[MeshPlan], specs: dict[str, MeshSpec]) -> None:
        self._plans = {plan.check_id: plan for plan in plans}
        self._specs = dict(specs)

    def plan_of(self, check_id: str) -> MeshPlan | None:
        return self._plans.get(check_id)

    def started(self, check_id: str) -> float | None:
        """When the check's mesh began (wall clock), once this process has read a wave of it."""
        return self._started.get(check_id)

    def probed_s(self, check_id: str, wave: int) -> float | None:
        """How long the wave's nodes took, from its first command sent to its last output read and parsed."""
        return self._probed_s.get((check_id, wave))

    def outputs(self, check_id: str, nodes: Sequence[str]) -> dict[str, NodeMesh]:
        """The mesh results of ``nodes`` (measuring the check's mesh first if no process of the run has)."""
        plan = self._plans[check_id]
        found = {}
        for node in nodes:
            wave = plan.wave_of(node)
            found[node] = self._wave(plan, wave)[node] if wave is not None else NodeMesh(
                node, None, error=f"{check_id}: {node} probes no peer (the mesh is one way)")
        return found

    def close(self) -> None:
        """Start no further wave; wait for the one this process measures (bounded by its commands' limits)."""
        self._closing.set()
        for lock, thread in list(self._driving.values()):
            thread.join()
            lock.release()
        self._driving.clear()

    def _file(self, check_id: str, wave: int) -> Path:
        return self._shared_dir / f"{lock_file_name(check_id)}-mesh-wave{wave:05d}.pickle"

    def _wave(self, plan: MeshPlan, wave: int) -> dict[str, NodeMesh]:
        key = (plan.check_id, wave)
        while key not in self._stored:
            stored = self._file(plan.check_id, wave)
            if stored.exists():
                with stored.open("rb") as handle:
                    started, ended, results = pickle.load(handle)
                with self._guard:
                    self._stored[key] = results
                    self._started.setdefault(plan.check_id, started)
                    self._probed_s[key] = round(ended - started, 2)
                break
            if not self._drive(plan):
                time.sleep(POLL_S)
        return self._stored[key]

    def _drive(self, plan: MeshPlan) -> bool:
        """Become the check's driver if no process of the run is; then measure its waves in the background."""
        with self._guard:
            if plan.check_id in self._driving or self._closing.is_set():
                return False
            self._shared_dir.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(self._shared_dir / f"{lock_file_name(plan.check_id)}.mesh.lock"), thread_local=False)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                return False
            thread = threading.Thread(target=self._measure_waves, args=(plan,), name=f"gpufabric-mesh-{plan.check_id}",
                                      daemon=True)
            self._driving[plan.check_id] = (lock, thread)
            thread.start()
            return True

    def _measure_waves(self, plan: MeshPlan) -> None:
        spec = self._specs[plan.check_id]
        for number, wave in enumerate(plan.waves, start=1):
            stored = self._file(plan.check_id, number)
            if stored.exists():
                continue
            if self._closing.is_set():
                return
            started = time.time()
            reason = self._stop_reason()
            if reason is not None:
                results = {node: NodeMesh(node, None, error=f"MeasurementMissing: {plan.check_id} mesh of {node}: not "
                                                            f"measured: the run stopped: {reason}") for node in wave}
            else:
                with ThreadPoolExecutor(max_workers=max(1, len(wave)), thread_name_prefix="gpufabric-mesh") as pool:
                    results = dict(zip(wave, pool.map(lambda node: self._node(plan, spec, node), wave)))
            partial = stored.with_suffix(".partial")
            with partial.open("wb") as handle:
                pickle.dump((started, time.time(), results), handle)
            partial.replace(stored)

    def _node(self, plan: MeshPlan, spec: MeshSpec, name: str) -> NodeMesh:
        command, bound = spec.command(plan.nodes[name], plan.peers[name])
        try:
            result = self._run(name, command, bound, f"{plan.check_id} mesh")
        except GpufabricError as exc:
            return NodeMesh(name, None, error=f"{error_kind(exc)}: {exc}")
        except Exception as exc:  # never a silent end of the wave's thread: its items would wait for it forever
            return NodeMesh(name, None, error=f"{type(exc).__name__}: {exc}")
        try:
            return NodeMesh(name, result, spec.facts(plan.nodes[name], result))
        except GpufabricError as exc:
            return NodeMesh(name, result, error=f"{error_kind(exc)}: {exc}")
