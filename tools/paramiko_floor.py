"""The least CPU that paramiko itself needs for a round's SSH work, beside what the plugin's transport spends on it.

A 1,024 x 8 pair-sweep round logs in to 1,024 nodes (once per run) and runs 2,048 commands (per node pair and
direction, one command starting the servers of all 8 rails and one running their clients), whose outputs are
perftest tables. Against the many-node loopback target (``pytest_gpufabric.lab.loopback_target``) this tool does
exactly that work twice, taking turns, with two clients:

- ``paramiko``: as lean as paramiko allows, no pytest-gpufabric code on the way: a bare ``paramiko.Transport`` per
  node (tuned as the plugin tunes it: AES-GCM first, no Nagle, the reader thread woken every ``READER_WAKEUP_S``
  when idle), the host key compared with the target's, the private key read once; each command on its own session
  channel, read until its exit status;
- ``plugin``: the plugin's ``SshTransport`` (``transport.ssh``), built from the target's inventory as a run builds
  it (``known_hosts`` checked, commands bounded and guarded on the node).

Both send the same command text (the plugin's bounded, guarded command: the node does the same work for both), from
a pool of ``--threads`` threads: the logins, then the round's commands on the open connections, ``--rounds`` times
(the later ones: what a later round of a sweep costs). It prints the CPU of this process per phase (``getrusage``:
every thread, paramiko's reader threads included); the target's server is a child process of its own and not
counted.

    .venv/bin/python -m tools.paramiko_floor --nodes 1024 [--threads 64] [--turns 2] [--rounds 2] [--json FILE]

The ``paramiko`` figures bound from below what any paramiko-based controller (fabric's included) spends on a
round: ``docs/scale-benchmarks.md``, "The floor of the SSH library".
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import socket
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import paramiko

from pytest_gpufabric.exclusive.leases import NodeGuard
from pytest_gpufabric.exclusive.names import port_for
from pytest_gpufabric.inventory import load_inventory
from pytest_gpufabric.lab.loopback_target import PERFTEST_CAPTURE, LoopbackTarget
from pytest_gpufabric.lab.synthetic_site import PROFILE
from pytest_gpufabric.transport.bounded import bounded_command
from pytest_gpufabric.transport.factory import live_transport
from pytest_gpufabric.transport.ssh import (
    READER_WAKEUP_S,
    SshTransport,
    tuned_transport,
)
from tools.figures_json import emit

RAILS = 8
CHUNK = 65536
TIMEOUT_S = 120.0  # each command's bound on the node, and each login's
RUN_ID = "floor-000001"
T = TypeVar("T")


def process_cpu_s() -> float:
    """User + system CPU of this process, every thread."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def node_commands(capture: Path) -> tuple[str, str]:
    """A node's two commands of a round: the servers' (a short output per rail) and the clients' (a perftest
    capture per rail, ~33 KB for 8 rails)."""
    servers = f"for r in $(seq {RAILS}); do echo server $r listening; done"
    clients = f"for r in $(seq {RAILS}); do cat {shlex.quote(str(capture))}; done"
    return servers, clients


def node_guard(node: str) -> NodeGuard:
    """A guard like a round's: the node's NICs, GPUs and ports of 8 rails."""
    resources = tuple(f"{kind}:{node}/{name}" for rail in range(RAILS)
                      for kind, name in (("nic", f"bnxt_re{rail}"), ("gpu", rail), ("port", port_for(rail))))
    return NodeGuard(RUN_ID, f"run {RUN_ID} (controller floor pid {os.getpid()})", resources)


class BareParamiko:
    """Logins and commands with paramiko alone (see the module docstring)."""

    def __init__(self, target: LoopbackTarget) -> None:
        self._port = target.port
        entries = paramiko.HostKeys(str(target.known_hosts))
        self._host_key = next(iter(next(iter(entries.values())).values()))  # one host key answers for every node
        self._key = paramiko.Ed25519Key.from_private_key_file(str(target.client_key))
        self._transports: dict[str, paramiko.Transport] = {}

    def connect(self, node: str, address: str) -> None:
        sock = socket.create_connection((address, self._port), timeout=TIMEOUT_S)
        transport = tuned_transport(sock)
        transport.start_client(timeout=TIMEOUT_S)
        if transport.get_remote_server_key() != self._host_key:
            raise RuntimeError(f"{node}: host key differs from the target's")
        transport.auth_publickey("root", self._key)
        sock.settimeout(READER_WAKEUP_S)
        self._transports[node] = transport

    def run(self, node: str, command: str) -> int:
        """The command's exit status, its whole output read."""
        channel = self._transports[node].open_session(timeout=TIMEOUT_S)
        try:
            channel.exec_command(bounded_command(command, TIMEOUT_S, guard=node_guard(node)))
            channel.shutdown_write()
            while channel.recv(CHUNK):
                pass
            return channel.recv_exit_status()
        finally:
            channel.close()

    def close(self) -> None:
        for transport in self._transports.values():
            transport.close()


class PluginTransport:
    """Logins and commands through the plugin's ``SshTransport``."""

    def __init__(self, target: LoopbackTarget, folder: Path) -> None:
        inventory = load_inventory(target.write_inventory(folder / "site.yaml"), [PROFILE])
        transport = live_transport(inventory, verify_host_keys=True)
        if not isinstance(transport, SshTransport):
            raise TypeError(f"the target's inventory gave a {type(transport).__name__}, not an SshTransport")
        self._transport = transport

    def connect(self, node: str, address: str) -> None:
        self._transport.connect(node)

    def run(self, node: str, command: str) -> int:
        return self._transport.run(node, command, TIMEOUT_S, guard=node_guard(node)).exit_code

    def close(self) -> None:
        self._transport.close()


def phase(name: str, work: Sequence[T], action: Callable[[T], Any], threads: int) -> dict[str, Any]:
    """``action`` on every element of ``work`` from ``threads`` threads; CPU of the whole and per element."""
    cpu, wall = process_cpu_s(), time.monotonic()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = list(pool.map(action, work))
    cpu, wall = process_cpu_s() - cpu, time.monotonic() - wall
    if name != "logins" and any(code != 0 for code in results):
        raise RuntimeError(f"{name}: a command failed on the target")
    return {"phase": name, "count": len(work), "cpu_s": round(cpu, 3), "ms_each": round(1000 * cpu / len(work), 3),
            "wall_s": round(wall, 2)}


def measure_client(client: BareParamiko | PluginTransport, nodes: dict[str, str], threads: int,
                   rounds: int) -> list[dict[str, Any]]:
    """The logins, then a round's commands ``rounds`` times on the open connections."""
    servers, clients = node_commands(PERFTEST_CAPTURE)
    commands = [(node, command) for node in nodes for command in (servers, clients)]
    try:
        phases = [phase("logins", list(nodes.items()), lambda entry: client.connect(*entry), threads)]
        for number in range(1, rounds + 1):
            name = "commands, first round" if number == 1 else f"commands, round {number}"
            phases.append(phase(name, commands, lambda job: client.run(*job), threads))
    finally:
        client.close()
    return phases


def measure(node_count: int, threads: int, turns: int, rounds: int = 2) -> dict[str, Any]:
    """Both clients ``turns`` times each, taking turns, against one target."""
    runs = []
    with LoopbackTarget(node_count, RAILS) as target, tempfile.TemporaryDirectory() as folder:
        inventory = target.inventory()
        nodes = {node["name"]: node["address"] for node in inventory["nodes"]}
        for turn in range(turns):
            for kind in ("paramiko", "plugin"):
                client = BareParamiko(target) if kind == "paramiko" else PluginTransport(target, Path(folder))
                runs.append({"client": kind, "turn": turn + 1, "load_average_at_start": round(os.getloadavg()[0], 1),
                             "phases": measure_client(client, nodes, threads, rounds)})
    return {"nodes": node_count, "rails": RAILS, "threads": threads, "paramiko": paramiko.__version__, "runs": runs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of commands on the open connections")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = measure(args.nodes, args.threads, args.turns, args.rounds)
    emit(figures, args.json)
    for run in figures["runs"]:
        for done in run["phases"]:
            print(f"{run['client']:>8} turn {run['turn']} (load {run['load_average_at_start']}): {done['phase']}: "
                  f"{done['count']} x, {done['cpu_s']} CPU-s ({done['ms_each']} ms each), {done['wall_s']} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
