"""Node-side leases and PID files of traffic commands: what keeps a second controller off a NIC, and what stops a
run's commands on a node.

Every traffic command of a run (a perftest server or client, a collective) runs on its node behind a short shell
prologue (``guard_prologue``), inside the ``timeout`` that bounds it:

1. its process group (the command and all it starts) goes into a PID file named after the run,
   ``<state>/pids/<run>.<pgid>``, removed when it ends (a script with an EXIT trap of its own runs ``guard_exit``
   in it). ``stop_command`` stops every command of the run on the
   node through those files, and signals a group only while its leader still carries the run's id in its
   environment (``GPUFABRIC_RUN``): a PID reused since is never signalled.
2. it leases each NIC, GPU and port it uses on that node: a shared ``flock`` on
   ``<state>/leases/<resource>.<run>.use``, held by the command itself (and what it starts) until it ends, even if
   its controller is killed. Commands of one run share their leases. Before taking them, under a short guard lock,
   the prologue looks for another run's lease of the same resource: one still locked means that run's traffic is
   on it, and the command ends at once with status ``LEASE_BUSY_EXIT`` and a line naming the holder
   (``gpufabric-lease: nic:node01/bnxt_re0 on node01 is in use by run 3f2a... (controller host1 pid 4242)``); one no
   longer locked is a leftover of an ended run and is removed.

``<state>`` is ``/run/gpufabric`` where the command may write under ``/run`` (root), else ``/tmp/gpufabric-<uid>``;
a node whose environment names ``GPUFABRIC_NODE_STATE`` keeps it there (the loopback target's simulated nodes, all
on one host, each in its own home: one shared guard lock made 64 nodes wait on each other).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.commands import sh
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.exclusive.locks import lock_file_name

LEASE_BUSY_EXIT = 75  # EX_TEMPFAIL
MARKER = "gpufabric-lease: "
ENV = "GPUFABRIC_RUN"
GUARD_WAIT_S = 10
STOP_WAIT_S = 2.0  # longest a stop waits for the stopped commands to end
EXIT_FUNCTION = "_gf_exit"  # the guard's EXIT trap, as a shell function (``guard_exit``)
RUN_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z-]{5,63}")  # e.g. 20261127-101500-3f2a9c: shell- and file-safe
STATE_ENV = "GPUFABRIC_NODE_STATE"  # a node's own state folder, where several simulated nodes share one host
_STATE = (f'_gf_s=${{{STATE_ENV}:-/run/gpufabric}}; [ -n "${{{STATE_ENV}:-}}" ] || [ -w /run ] || '
          '_gf_s="/tmp/gpufabric-$EUID"')


class LeaseError(GpufabricError):
    """A traffic command could not lease its resources on its node (the reason in the node's own words)."""

    def __init__(self, node: str, line: str) -> None:
        super().__init__(f"{node}: {line}")
        self.node = node
        self.line = line


class LeaseBusy(LeaseError):
    """Another run (another controller) holds a lease on a resource of the command."""


@dataclass(frozen=True)
class NodeGuard:
    """What guards a run's traffic command on one node: the run's id, the line naming the run for others (its
    controller's host and PID) and the resources the command uses on that node."""

    run_id: str
    holder: str
    resources: tuple[str, ...]

    def __post_init__(self) -> None:
        if not RUN_ID.fullmatch(self.run_id):
            raise ValueError(f"run id {self.run_id!r}: expected 6 to 64 letters, digits and dashes, the first no dash")


def holder_line(run_id: str, host: str, pid: int) -> str:
    """How a lease names its run to another controller."""
    return f"run {run_id} (controller {host} pid {pid})"


def lease_name(resource: str) -> str:
    """The file-safe name of a resource's lease (no shell or path character)."""
    return lock_file_name(resource).removesuffix(".lock")


def guard_prologue(guard: NodeGuard) -> str:
    """Shell lines run before the command, inside its ``timeout``: its PID file, then its leases (see above)."""
    run = guard.run_id
    entries = " ".join(sh(f"{lease_name(resource)}|{resource}") for resource in sorted(set(guard.resources)))
    busy = f'echo "{MARKER}$_gf_v on $HOSTNAME'
    return "\n".join([
        _STATE,
        '[ -d "$_gf_s/leases" ] || mkdir -p -m 0700 "$_gf_s/pids" "$_gf_s/leases"',
        "read -r _ _ _ _ _gf_g _ < /proc/$$/stat",
        f'_gf_p="$_gf_s/pids/{run}.$_gf_g"; echo "$_gf_g" > "$_gf_p"; _gf_exit() {{ rm -f "$_gf_p"; }}; trap _gf_exit EXIT',
        f'command -v flock > /dev/null || {{ echo "{MARKER}no flock on $HOSTNAME: no lease can be taken"; exit {LEASE_BUSY_EXIT}; }}',
        f'exec 8> "$_gf_s/leases/.guard"; flock -w {GUARD_WAIT_S} 8 || '
        f'{{ echo "{MARKER}the lease guard of $HOSTNAME stayed busy {GUARD_WAIT_S} s"; exit {LEASE_BUSY_EXIT}; }}',
        f"for _gf_e in {entries}; do _gf_r=${{_gf_e%%|*}}; _gf_v=${{_gf_e#*|}}",
        '  for _gf_f in "$_gf_s/leases/$_gf_r".*.use; do',
        f'    [ -e "$_gf_f" ] && [ "$_gf_f" != "$_gf_s/leases/$_gf_r.{run}.use" ] || continue',
        '    if flock -n -x "$_gf_f" true 2> /dev/null; then rm -f "$_gf_f"; '
        f'else read -r _gf_h < "$_gf_f"; {busy} is in use by $_gf_h"; exit {LEASE_BUSY_EXIT}; fi',
        "  done",
        "done",
        f"for _gf_e in {entries}; do _gf_f=\"$_gf_s/leases/${{_gf_e%%|*}}.{run}.use\"; exec {{_gf_d}}>> \"$_gf_f\"; "
        f'flock -s "$_gf_d"; [ -s "$_gf_f" ] || echo {sh(guard.holder)} >> "$_gf_f"; done',
        "exec 8>&-",
    ])


def guard_exit() -> str:
    """What a guarded script that sets an EXIT trap of its own runs in it: the guard's own (its PID file removed)."""
    return f"! declare -F {EXIT_FUNCTION} > /dev/null || {EXIT_FUNCTION}"


def stop_command(run_id: str) -> str:
    """Stop every traffic command of ``run_id`` on the node (SIGTERM to each group still carrying the run's id; the
    ``timeout`` around it follows with SIGKILL if needed), wait up to ``STOP_WAIT_S`` for them to end, print how
    many it stopped. Always exit 0."""
    if not RUN_ID.fullmatch(run_id):
        raise ValueError(f"run id {run_id!r}: expected 6 to 64 letters, digits and dashes, the first no dash")
    ours = f"grep -qzx {ENV}={run_id} \"/proc/$_gf_g/environ\" 2> /dev/null"
    each = f'for _gf_p in "$_gf_s/pids/{run_id}".*; do [ -e "$_gf_p" ] && read -r _gf_g < "$_gf_p" || continue;'
    polls = round(STOP_WAIT_S / 0.1)
    return "\n".join([
        _STATE,
        "_gf_n=0",
        f'{each} if {ours}; then kill -TERM -- "-$_gf_g" 2> /dev/null && _gf_n=$((_gf_n + 1)); else rm -f "$_gf_p"; fi; done',
        f"_gf_i=0; while [ $_gf_i -lt {polls} ]; do _gf_a=0",
        f'  {each} if kill -0 -- "-$_gf_g" 2> /dev/null && {ours}; then _gf_a=1; else rm -f "$_gf_p"; fi; done',
        "  [ $_gf_a = 0 ] && break; sleep 0.1; _gf_i=$((_gf_i + 1))",
        "done",
        'echo "stopped $_gf_n"; true',
    ])


def busy_line(exit_code: int, stdout: str) -> str | None:
    """The lease line of a command the prologue refused (None when the command itself ran)."""
    if exit_code != LEASE_BUSY_EXIT:
        return None
    return next((line.strip() for line in stdout.splitlines() if line.startswith(MARKER)), None)


def lease_error(node: str, line: str) -> LeaseError:
    """``LeaseBusy`` when another run holds the resource, else ``LeaseError``."""
    return LeaseBusy(node, line) if " is in use by " in line else LeaseError(node, line)
