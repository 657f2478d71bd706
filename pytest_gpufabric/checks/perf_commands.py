"""Command lines of the perftest runs, as pure functions: two SSH commands per run, side by side, no fixed sleep.

1. ``server_command``: run the server in the foreground of its command (its output is the command's), its PID
   in a file while it runs;
2. ``client_command``, at the same time on the other node: run the client to the end; while the server is not
   listening yet ("Couldn't connect"), try again after ``RETRY_PAUSES_S``, for at most ``CONNECT_TIMEOUT_S``;
3. ``stop_command``, only for a server still running ``END_WAIT_S`` after its client ended: stop it by its PID.

The rails of a node pair run together, one command per node and step instead of one per run:
``servers_command`` starts every server of a node at once (each with its PID file), ``clients_command`` runs every
client of a node at once, and ``stop_all_command`` stops what is left (``checks.node_scripts`` frames each
program's output): a node pair of 8 rails takes 4 commands per pair check where the runs one by one took 32.

Each command is bounded on its node by the transport (``timeout --kill-after`` around the whole command, with
the call's time limit: ``SERVER_LIFETIME_S``, ``CLIENT_TIMEOUT_S``), so nothing outlives its run.

Every string is deterministic for a given item, so a recording made live replays offline: the PID file of a
server (and the log of a concurrent client) is named after the check, the pair and the direction, never
after a random temporary name.

Ports: a perftest server listens on one TCP port for the out-of-band exchange, ``port_for`` its NIC's rail
(``exclusive.names``: a port is a resource, locked like the NIC itself).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_gpufabric.checks.node_scripts import runner
from pytest_gpufabric.commands import sh
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.transport.beside import STOPPED_EXIT

# Flags of S4 "Perftest" and S0 2.8.2: GID index 3 (RoCE v2), all sizes, bidirectional, report Gb/s.
BW_FLAGS = ("-x", "3", "-a", "-b", "-F", "--report_gbits")
LAT_FLAGS = ("-x", "3", "-a", "-F")
# S0 2.8.2 runs ib_write_bw with 4 queue pairs (-q 4); S1 does the same with ib_send_bw.
QUEUE_PAIRS = 4
SERVER_LIFETIME_S = 300  # time limit of a server's command
CLIENT_TIMEOUT_S = 240  # time limit of a client's run (its command's limit adds CONNECT_TIMEOUT_S)
# Pauses between a client's connection attempts, on its node (no round trip per attempt): doubling from 50 ms
# to 200 ms, so that a server slow to start (a loaded node) is not met by a storm of attempts.
RETRY_PAUSES_S = (0.05, 0.1, 0.2)
CONNECT_TIMEOUT_S = 10.0  # longest a client tries to reach a server that is starting beside it
END_WAIT_S = 2.0  # longest wait for a server to end after its client (then it is stopped)
LOG_DIR = "/tmp"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def log_path(check_id: str, target_id: str, role: str, suffix: str = "log") -> str:
    """A file name derived from the item alone (deterministic, safe for the shell and the file system)."""
    name = _SAFE.sub("_", f"gpufabric-{check_id}-{target_id}-{role}").strip("_")
    return f"{LOG_DIR}/{name}.{suffix}"


def pid_path(check_id: str, target_id: str, role: str) -> str:
    """The file that holds a running server's PID (for ``stop_command``)."""
    return log_path(check_id, target_id, role, "pid")


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


def server_command(tool: str, end: PerftestEnd, port: int, pid_file: str, flags: tuple[str, ...] = BW_FLAGS,
                   extra: tuple[str, ...] = ()) -> str:
    """Run the server; its PID in ``pid_file`` while it runs; its output and status are the command's
    (``STOPPED_EXIT`` of ``transport.beside`` when ``stop_command`` stopped it)."""
    words = perftest_words(tool, end, port, flags, extra)
    return f"{sh(*words)} < /dev/null 2>&1 & echo $! > {sh(pid_file)}; wait $!; rc=$?; rm -f {sh(pid_file)}; exit $rc"


def client_command(tool: str, end: PerftestEnd, server_address: str, port: int, flags: tuple[str, ...] = BW_FLAGS,
                   extra: tuple[str, ...] = ()) -> str:
    """Run the client to the end, sourcing its traffic from its own NIC address; while its server is not
    listening yet, try again (bounded); print the last attempt's output, exit with its status."""
    words = [*perftest_words(tool, end, port, flags, extra), f"--bind_source_ip={end.address}", server_address]
    first = RETRY_PAUSES_S[0]
    return (f"p={first:g} m={round(first * 1000)} w=0; while :; do out=$({sh(*words)} 2>&1); rc=$?; "
            f"case $out in *\"Couldn't connect\"*) ;; *) break;; esac; {_pause_or_give_up()}; done; "
            f"printf '%s\\n' \"$out\"; exit $rc")


def _pause_or_give_up() -> str:
    """Shell words: leave the loop once the pauses reach ``CONNECT_TIMEOUT_S`` (``w`` ms), else pause ``p`` s
    (``m`` ms) and take the next pause of ``RETRY_PAUSES_S`` (the last one repeats)."""
    longer = " ".join(f"{a:g}) p={b:g} m={round(b * 1000)};;" for a, b in zip(RETRY_PAUSES_S, RETRY_PAUSES_S[1:]))
    return f"[ $w -lt {round(CONNECT_TIMEOUT_S * 1000)} ] || break; sleep $p; w=$((w + m)); case $p in {longer} esac"


def stop_command(pid_file: str) -> str:
    """Stop a server by the PID in its file (the file is gone once it ended); always exit 0."""
    return f"{{ read -r pid < {sh(pid_file)} && kill \"$pid\"; }} 2>/dev/null; true"


def first_core(cpulist: str) -> int | None:
    """The first CPU of a sysfs ``local_cpulist`` (``0-47,96-143`` -> 0); None when it is not a CPU list."""
    match = re.match(r"\s*(\d+)(?:[-,]\d+)*", cpulist)
    if match is None or not re.fullmatch(r"\s*\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*\s*", cpulist):
        return None
    return int(match.group(1))


def local_cpulist_command(device: str) -> str:
    """The CPUs local to an RDMA device's PCIe function (S2: use cores local to the network device)."""
    return sh("cat", f"/sys/class/infiniband/{device}/device/local_cpulist")


# ---------------------------------------------------------------- many runs in one command per node

Server = tuple[str, str, list[str]]  # label, PID file, perftest words
Client = tuple[str, str]  # label, client_command(...)


def servers_command(servers: Sequence[Server]) -> str:
    """Every server at once on one node (the servers of a node pair's rails), each with its PID file while it
    runs; each server's output is a section of the command's. Exits ``STOPPED_EXIT`` when ``stop_all_command``
    stopped one of them (a replay then replays the stop, as the live run ran it)."""
    lines = [runner(max(1, len(servers)))]
    lines += [f"serve {sh(label)} {sh(pid_file)} -- {sh(*words)}" for label, pid_file, words in servers]
    lines.append(f"sections; [ $stopped -eq 0 ] || exit {STOPPED_EXIT}")
    return "\n".join(lines)


def clients_command(clients: Sequence[Client]) -> str:
    """Every client at once on one node (the clients of one direction of a node pair's rails), each retrying
    while its server is not listening yet (``client_command``); each client's output is a section."""
    lines = [runner(max(1, len(clients)))]
    lines += [f"c{index}() ( {command} )" for index, (_, command) in enumerate(clients)]
    lines += [f"job {sh(label)} -- c{index}" for index, (label, _) in enumerate(clients)]
    lines.append("sections")
    return "\n".join(lines)


def stop_all_command(pid_files: Sequence[str]) -> str:
    """Stop every server still running by the PID in its file; always exit 0."""
    return "; ".join(f"{{ read -r pid < {sh(pid_file)} && kill \"$pid\"; }} 2>/dev/null" for pid_file in pid_files) + "; true"
