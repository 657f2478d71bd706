"""What a controller process spends on host keys before it connects: reading the known_hosts file of N nodes
(one line each, as ``ssh-keyscan`` writes it) and finding every node's keys, in CPU time of the process.

paramiko's ``HostKeys`` (what the transport used before) compares a name with every line, and compares every line
with the lines before while reading: the square of the nodes, in every controller process. Measured, reading and
every lookup: 0.056 CPU-s at 512 nodes, 0.19 at 1,024, 3.0 at 4,096. ``KnownHosts`` indexes the names: linear,
0.0035, 0.007 and 0.03 CPU-s.
A hashed file (``|1|salt|hash`` names, OpenSSH's ``HashKnownHosts``) can only be compared entry by entry: each has
its own salt. ``KnownHosts`` decodes the salts and hashes once and hashes in one call into the standard library
(paramiko decodes, hashes and encodes again for every comparison): 1.4 CPU-s at 1,024 nodes against 12.9, 0.089 at
256 against 0.81. Both are timed in one run (the lowest of ``TURNS`` each: this machine is shared).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paramiko

from pytest_gpufabric.transport.known_hosts import KnownHosts

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
PORT = 2222
SMALL, LARGE = 1024, 4096
HASHED = 256  # nodes of the hashed file
MAX_GROWTH = 6.0  # CPU at LARGE over CPU at SMALL: 4 when linear, 16 when quadratic
MIN_SPEEDUP = 5.0  # paramiko's CPU over KnownHosts' at SMALL
TURNS = 3


def _name(index: int) -> str:
    return f"[10.{index // 65536}.{index // 256 % 256}.{index % 256}]:{PORT}"


def _known_hosts(folder: Path, nodes: int, hashed: bool = False) -> Path:
    path = folder / f"known_hosts-{nodes}{'-hashed' if hashed else ''}"
    names = (_name(index) for index in range(nodes))
    path.write_text("".join(f"{paramiko.HostKeys.hash_host(name) if hashed else name} {KEY}\n" for name in names))
    return path


def _with_known_hosts(path: Path, nodes: int) -> int:
    known = KnownHosts(path)
    return sum(len(known.keys_of(_name(index))) for index in range(nodes))


def _with_paramiko(path: Path, nodes: int) -> int:
    known = paramiko.HostKeys(str(path))
    return sum(len(known.lookup(_name(index)) or {}) for index in range(nodes))


def _cpu_s(read: Callable[[Path, int], int], path: Path, nodes: int) -> float:
    """The lowest CPU time of ``TURNS`` readings and lookups of every node; every node must have its key."""
    times = []
    for _ in range(TURNS):
        started = time.process_time()
        assert read(path, nodes) == nodes
        times.append(time.process_time() - started)
    return min(times)


def test_host_keys_cost_grows_with_the_nodes_not_their_square(tmp_path: Path, benchmark: Any) -> None:
    small, large = _known_hosts(tmp_path, SMALL), _known_hosts(tmp_path, LARGE)
    ours_small, ours_large = _cpu_s(_with_known_hosts, small, SMALL), _cpu_s(_with_known_hosts, large, LARGE)
    paramikos_small = _cpu_s(_with_paramiko, small, SMALL)
    benchmark.pedantic(_with_known_hosts, args=(large, LARGE), rounds=1, iterations=1)
    growth, speedup = ours_large / ours_small, paramikos_small / ours_small
    print(f"known_hosts, reading and every lookup: {ours_small:.3f} CPU-s at {SMALL} nodes, {ours_large:.3f} "
          f"at {LARGE} "
          f"({growth:.1f} x); paramiko {paramikos_small:.3f} at {SMALL} ({speedup:.0f} x)")
    assert growth < MAX_GROWTH, f"{growth:.1f} x the CPU for {LARGE // SMALL} x the nodes: not linear"
    assert speedup > MIN_SPEEDUP, f"only {speedup:.1f} x cheaper than paramiko's HostKeys at {SMALL} nodes"


def test_a_hashed_file_costs_less_than_in_paramiko(tmp_path: Path) -> None:
    hashed = _known_hosts(tmp_path, HASHED, hashed=True)
    ours, paramikos = _cpu_s(_with_known_hosts, hashed, HASHED), _cpu_s(_with_paramiko, hashed, HASHED)
    print(f"hashed known_hosts, reading and every lookup at {HASHED} nodes: {ours:.3f} CPU-s, paramiko {paramikos:.3f}")
    assert paramikos / ours > MIN_SPEEDUP, f"only {paramikos / ours:.1f} x cheaper than paramiko's HostKeys"
