"""Command lines of the perftest runs, as pure functions: three SSH commands per run, no fixed sleep.

1. ``server_command``: start the server in the background (its output in a log), print its PID and wait on its
   node until it listens on its port (polled by the node's own shell, ``POLL_INTERVAL_S`` apart, bounded);
2. ``client_command``: run the client to the end;
3. ``stop_command``: wait (bounded) for the server to end, print its log, stop it by its PID, remove the log.

Every string is deterministic for a given item, so a recording made live replays offline: the log file of
a server is named after the check, the pair and the direction, never after a random temporary name. The
server runs in the background on its node, bounded on the remote side by ``timeout --kill-after``.

Ports: a perftest server listens on one TCP port for the out-of-band exchange. Concurrent tests never share
a NIC (the scheduler holds a lock per NIC), so a port derived from the server NIC's rail is distinct among
all the servers running on one node at any time; the scheduler also locks the port itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.commands import sh
from pytest_gpufabric.errors import UsageError

# perftest's default port is 18515 (ib_write_bw --help); servers of this plugin use the ports above it.
BASE_PORT = 18516
# Flags of S4 "Perftest" and S0 2.8.2: GID index 3 (RoCE v2), all sizes, bidirectional, report Gb/s.
BW_FLAGS = ("-x", "3", "-a", "-b", "-F", "--report_gbits")
LAT_FLAGS = ("-x", "3", "-a", "-F")
# S0 2.8.2 runs ib_write_bw with 4 queue pairs (-q 4); S1 does the same with ib_send_bw.
QUEUE_PAIRS = 4
SERVER_LIFETIME_S = 300  # bound of a background server on its node
CLIENT_TIMEOUT_S = 240
KILL_AFTER_S = 5
POLL_INTERVAL_S = 0.02  # readiness and end polls run on the node (no round trip per poll)
READY_TIMEOUT_S = 10.0  # longest wait for a server to listen
END_WAIT_S = 2.0  # longest wait for a server to end after its client (then it is stopped)
LOG_DIR = "/tmp"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def port_for(rail: int, offset: int = 0) -> int:
    """The server port of a NIC on ``rail`` (``offset`` separates the servers of one NIC in one test)."""
    if rail < 0 or offset < 0:
        raise UsageError(f"rail {rail} and port offset {offset} must not be negative")
    return BASE_PORT + rail + 64 * offset


def log_path(check_id: str, target_id: str, role: str) -> str:
    """A log file name derived from the item alone (deterministic, safe for the shell and the file system)."""
    name = _SAFE.sub("_", f"gpufabric-{check_id}-{target_id}-{role}").strip("_")
    return f"{LOG_DIR}/{name}.log"


@dataclass(frozen=True)
class PerftestEnd:
    """One side of a perftest run: its RDMA device, IP address, GPU flag (or None) and NUMA core (or None)."""

    device: str
    address: str
    gpu_flag: str | None = None
    core: int | None = None


def gpu_flag(gpu_vendor: str, gpu_index: int) -> str:
    """``--use_rocm=<gpu>`` (AMD, S4/S0 2.8) or ``--use_cuda=<gpu>`` (NVIDIA, S1)."""
    if gpu_vendor == "amd":
        return f"--use_rocm={gpu_index}"
    if gpu_vendor == "nvidia":
        return f"--use_cuda={gpu_index}"
    raise UsageError(f"no perftest GPU-memory flag for GPU vendor {gpu_vendor!r}")


def perftest_words(tool: str, end: PerftestEnd, port: int, flags: tuple[str, ...], extra: tuple[str, ...] = ()) -> list[str]:
    """The perftest words of one side (without the peer address); pinned to ``end.core`` when given (S2)."""
    words = ["numactl", "-C", str(end.core)] if end.core is not None else []
    words += [tool, *flags, *extra, "-d", end.device, "-p", str(port)]
    if end.gpu_flag:
        words.append(end.gpu_flag)
    return words


def _poll(body: str, bound_s: float) -> str:
    """A shell loop running ``body`` every ``POLL_INTERVAL_S`` at most ``bound_s`` (``body`` leaves it)."""
    return f"for i in $(seq {round(bound_s / POLL_INTERVAL_S)}); do {body}; sleep {POLL_INTERVAL_S:g}; done"


def running(pid: str) -> str:
    """True while ``pid`` runs: neither gone nor a zombie (an orphaned server may wait to be reaped). Shell
    built-ins only (the state is the third field of /proc/PID/stat; the command is ``timeout``, one word)."""
    return f'{{ read -r _ _ state _ < /proc/{pid}/stat; }} 2>/dev/null && [ "$state" != Z ]'


def server_command(tool: str, end: PerftestEnd, port: int, log: str, flags: tuple[str, ...] = BW_FLAGS,
                   extra: tuple[str, ...] = ()) -> str:
    """Start the server in the background, bounded in time, and print its PID; then wait until a TCP listener
    on ``port`` exists: exit 0 listening, 3 when the server ended first, 124 when it did not listen in time."""
    words = ["timeout", f"--kill-after={KILL_AFTER_S}", str(SERVER_LIFETIME_S), *perftest_words(tool, end, port, flags, extra)]
    ready = _poll(f"ss -Hltn 'sport = :{port}' | grep -q . && exit 0; {running('$pid')} || exit 3", READY_TIMEOUT_S)
    return f"{sh(*words)} < /dev/null > {sh(log)} 2>&1 & pid=$!; echo $pid; {ready}; exit 124"


def client_command(tool: str, end: PerftestEnd, server_address: str, port: int, flags: tuple[str, ...] = BW_FLAGS,
                   extra: tuple[str, ...] = ()) -> str:
    """Run the client to the end, bounded in time, sourcing its traffic from its own NIC address."""
    words = ["timeout", f"--kill-after={KILL_AFTER_S}", str(CLIENT_TIMEOUT_S), *perftest_words(tool, end, port, flags, extra),
             f"--bind_source_ip={end.address}", server_address]
    return f"{sh(*words)} 2>&1"


def stop_command(pid: int, log: str) -> str:
    """Wait (bounded) for the server to end, print its log, stop it by its PID (it may have ended), remove the
    log; always exit 0."""
    ended = _poll(f"{running(str(pid))} || break", END_WAIT_S)
    return f"{ended}; cat {sh(log)} 2>/dev/null; kill {pid} 2>/dev/null; rm -f {sh(log)}; true"


def parse_pid(stdout: str) -> int | None:
    """The PID the server command printed (its first line), or None when that is not a number."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if not lines or not lines[0].isdigit():
        return None
    return int(lines[0])


def first_core(cpulist: str) -> int | None:
    """The first CPU of a sysfs ``local_cpulist`` (``0-47,96-143`` -> 0); None when it is not a CPU list."""
    match = re.match(r"\s*(\d+)(?:[-,]\d+)*", cpulist)
    if match is None or not re.fullmatch(r"\s*\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*\s*", cpulist):
        return None
    return int(match.group(1))


def local_cpulist_command(device: str) -> str:
    """The CPUs local to an RDMA device's PCIe function (S2: use cores local to the network device)."""
    return sh("cat", f"/sys/class/infiniband/{device}/device/local_cpulist")
