"""Bound every command on the node itself, so nothing outlives its test even if the channel dies."""

from __future__ import annotations

import shlex

KILL_GRACE_S = 5


def bounded_command(command: str, timeout_s: float, *, sudo: bool = False) -> str:
    """Wrap ``command`` in ``timeout --kill-after`` (which signals the whole process group) with a
    C locale so tool outputs parse the same everywhere; ``sudo -n`` never prompts for a password."""
    inner = (
        f"env LC_ALL=C timeout --kill-after={KILL_GRACE_S}s {timeout_s:g}s "
        f"bash -c {shlex.quote(command)}"
    )
    return f"sudo -n {inner}" if sudo else inner


def channel_timeout(timeout_s: float) -> float:
    """How long the local side waits: the remote bound plus its kill grace and some slack."""
    return timeout_s + KILL_GRACE_S + 10
