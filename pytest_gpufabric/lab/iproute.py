"""Thin, bounded wrappers around the ``ip`` command (iproute2); every failure raises ``LabError``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any

from pytest_gpufabric.lab.errors import LabError

IP_TIMEOUT_S = 20.0


def run(
    argv: Sequence[str],
    *,
    stdin: str | None = None,
    timeout_s: float = IP_TIMEOUT_S,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run one command of the lab (never through a shell); raise ``LabError`` when it fails and ``check``."""
    try:
        done = subprocess.run(
            list(argv),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LabError(f"{' '.join(argv)}: {exc}") from exc
    if check and done.returncode != 0:
        raise LabError(
            f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip() or done.stdout.strip()}"
        )
    return done


def ip(
    *args: str, netns: str | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``ip [-n NETNS] ARGS...``."""
    prefix = ["ip", "-n", netns] if netns else ["ip"]
    return run([*prefix, *args], check=check)


def ip_batch(lines: Sequence[str], *, netns: str | None = None) -> None:
    """Run many ``ip`` commands in one process (``ip -batch -``); stops at the first failing line."""
    if not lines:
        return
    prefix = ["ip", "-n", netns] if netns else ["ip"]
    done = run([*prefix, "-batch", "-"], stdin="\n".join(lines) + "\n", check=False)
    if done.returncode != 0:
        numbered = "\n".join(f"  {n}: {line}" for n, line in enumerate(lines, start=1))
        raise LabError(
            f"ip -batch in {netns or 'root namespace'} failed: {done.stderr.strip()}\n{numbered}"
        )


def ip_json(*args: str, netns: str | None = None) -> list[dict[str, Any]]:
    """``ip -j ARGS...`` parsed; an empty output is an empty list."""
    prefix = ["ip", "-j", "-n", netns] if netns else ["ip", "-j"]
    text = run([*prefix, *args]).stdout.strip()
    if not text:
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LabError(
            f"ip -j {' '.join(args)} printed no JSON: {text[:200]!r}"
        ) from exc
    if not isinstance(data, list):
        raise LabError(
            f"ip -j {' '.join(args)} printed {type(data).__name__}, expected a list"
        )
    return data


def list_namespaces() -> list[str]:
    """Names of the named network namespaces (``ip netns list``)."""
    out = run(["ip", "netns", "list"]).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def namespace_pids(netns: str) -> list[int]:
    """PIDs of the processes inside ``netns`` (empty when the namespace is gone)."""
    done = run(["ip", "netns", "pids", netns], check=False)
    if done.returncode != 0:
        return []
    return [int(tok) for tok in done.stdout.split() if tok.isdigit()]


def add_namespace(netns: str) -> None:
    run(["ip", "netns", "add", netns])
    ip("link", "set", "lo", "up", netns=netns)


def delete_namespace(netns: str) -> None:
    """Delete ``netns`` if it exists (its interfaces and their veth peers go with it)."""
    if netns in list_namespaces():
        run(["ip", "netns", "delete", netns])


def sysctl(netns: str, key: str, value: str) -> None:
    run(["ip", "netns", "exec", netns, "sysctl", "-q", "-w", f"{key}={value}"])
