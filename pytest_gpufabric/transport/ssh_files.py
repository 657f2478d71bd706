"""The controller's own SSH files of a live run, checked before it starts: each ``key`` and ``known_hosts`` the
inventory names must be readable here. Otherwise every node that names the file would fail on its own, at its first
connection: a thousand errors of one cause, found one connection at a time."""

from __future__ import annotations

import os

from pytest_gpufabric.inventory import Inventory

SETTINGS = ("key", "known_hosts")


def ssh_file_problems(inventory: Inventory, verify_host_keys: bool) -> list[str]:
    """One line per file the inventory names that cannot be read on this controller, with the machines that name
    it. Files of machines reached without SSH (nodes of a ``local`` inventory) and, with host keys not verified,
    ``known_hosts`` files are not needed, so not checked."""
    machines = [*([] if inventory.transport == "local" else inventory.nodes), *inventory.switches]
    settings = SETTINGS if verify_host_keys else ("key",)
    named: dict[tuple[str, str], list[str]] = {}  # (setting, path) -> the machines that name it, in inventory order
    for machine in machines:
        for setting in settings:
            path = getattr(machine.ssh, setting)
            if path:
                named.setdefault((setting, path), []).append(machine.name)
    problems = []
    for (setting, path), names in named.items():
        reason = _unreadable(os.path.expanduser(path))
        if reason is not None:
            who = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1:,} more"
            problems.append(f"ssh.{setting} {path} (of {who}) cannot be read on this controller: {reason}")
    return problems


def _unreadable(path: str) -> str | None:
    """Why ``path`` cannot be read as a file, or None when it can."""
    try:
        with open(path, "rb"):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)
