"""Bound every command on the node itself, so nothing outlives its test even if the channel dies."""

from __future__ import annotations

import shlex

from pytest_gpufabric.exclusive.leases import ENV, NodeGuard, guard_prologue

KILL_GRACE_S = 5


def bounded_command(command: str, timeout_s: float, *, sudo: bool = False, guard: NodeGuard | None = None) -> str:
    """Wrap ``command`` in ``timeout --kill-after`` (which signals the whole process group) with a
    C locale so tool outputs parse the same everywhere; ``sudo -n`` never prompts for a password. A traffic
    command's ``guard`` puts its PID file and node leases before it, inside the bound (``exclusive.leases``)."""
    script = command if guard is None else f"{guard_prologue(guard)}\n{command}"
    run_env = "" if guard is None else f" {ENV}={guard.run_id}"
    inner = (
        f"env LC_ALL=C{run_env} timeout --kill-after={KILL_GRACE_S}s {timeout_s:g}s "
        f"bash -c {shlex.quote(script)}"
    )
    return f"sudo -n {inner}" if sudo else inner


def channel_timeout(timeout_s: float) -> float:
    """How long the local side waits: the remote bound plus its kill grace and some slack."""
    return timeout_s + KILL_GRACE_S + 10
