"""Probe every node at once through the project's transports (SSH, local) and the fan-out of discovery: one
bounded command per node, nodes that need the same requirements sent the same command. At 1,024 nodes the SSH
handshakes are the controller's cost (about 9 ms of CPU a node with paramiko): live nodes are shared among
processes, one per core, each with its own transport."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.fanout import fan_out
from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.preflight.probe import probe_command, read_answer
from pytest_gpufabric.preflight.requirements import Requirement
from pytest_gpufabric.transport.base import Transport

ITEM = "preflight"  # the item name a recording would file the probe under
SUDO_REFUSED = ("sudo: a password is required", "sudo: a terminal is required", "is not in the sudoers file",
                "sudo: no tty present")


@dataclass(frozen=True)
class NodeProbe:
    """What one node answered: whether each requirement holds, or why it could not be probed."""

    node: str
    holds: Mapping[str, bool] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


def _error(result_stderr: str, result_stdout: str, exit_code: int) -> str:
    text = (result_stderr or result_stdout).strip()
    if any(refusal in text for refusal in SUDO_REFUSED):
        return "passwordless sudo refused (ssh.sudo: true needs sudo without a password)"
    last = text.splitlines()[-1][:160] if text else ""
    return f"probe failed (exit {exit_code}" + (f": {last})" if last else ")")


def probe_node(transport: Transport, node: str, requirements: Sequence[Requirement], timeout_s: float) -> NodeProbe:
    started = time.monotonic()
    try:
        result = transport.run(node, probe_command(requirements), timeout_s, item=ITEM)
    except GpufabricError as exc:
        return NodeProbe(node, error=getattr(exc, "reason", None) or str(exc), seconds=time.monotonic() - started)
    seconds = time.monotonic() - started
    if result.exit_code != 0:
        return NodeProbe(node, error=_error(result.stderr, result.stdout, result.exit_code), seconds=seconds)
    answer = read_answer(result.stdout, requirements)
    unanswered = [r.key for r in requirements if r.key not in answer.holds]
    if unanswered:
        shown = f"; unread: {answer.unread[0][:80]!r}" if answer.unread else ""
        return NodeProbe(node, answer.holds, f"probe answered {len(answer.holds)} of {len(requirements)} requirements{shown}", seconds)
    return NodeProbe(node, answer.holds, None, seconds)


def probe_nodes(transport: Transport, needs: Mapping[str, Sequence[Requirement]], *, workers: int,
                timeout_s: float) -> list[NodeProbe]:
    """Every node of ``needs`` (node -> its requirements) probed, at most ``workers`` at once, in order."""
    nodes = list(needs)
    return fan_out(nodes, lambda node: probe_node(transport, node, needs[node], timeout_s), workers=workers,
                   interrupted=lambda node: NodeProbe(node, error="interrupted before it was probed"))


def _probe_share(inventory: Inventory, verify_host_keys: bool, needs: dict[str, list[Requirement]], workers: int,
                 timeout_s: float) -> list[NodeProbe]:
    """One process's share of the nodes, through a live transport of its own (run in a worker process)."""
    from pytest_gpufabric.transport.factory import live_transport

    transport = live_transport(inventory, verify_host_keys)
    try:
        return probe_nodes(transport, needs, workers=workers, timeout_s=timeout_s)
    finally:
        transport.close()


def probe_live(inventory: Inventory, verify_host_keys: bool, needs: Mapping[str, Sequence[Requirement]], *,
               workers: int, timeout_s: float, processes: int) -> list[NodeProbe]:
    """The live nodes probed by ``processes`` processes, each with its share of the nodes and of ``workers``
    (SSH handshakes cost the controller's CPU: one process uses one core); one process probes in this one."""
    nodes = list(needs)
    shares = max(1, min(processes, len(nodes)))
    if shares == 1:
        return _probe_share(inventory, verify_host_keys, {n: list(needs[n]) for n in nodes}, workers, timeout_s)
    chunks = [nodes[i::shares] for i in range(shares)]
    per_process = max(1, workers // shares)
    with ProcessPoolExecutor(shares, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_probe_share, inventory, verify_host_keys, {n: list(needs[n]) for n in chunk},
                               per_process, timeout_s) for chunk in chunks]
        probed = {probe.node: probe for future in futures for probe in future.result()}
    return [probed[node] for node in nodes]
