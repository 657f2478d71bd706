"""Run commands on this machine (inventories with ``transport: local``, and the project's own tests)."""

from __future__ import annotations

import subprocess
import time

from pytest_gpufabric.exclusive.leases import NodeGuard, busy_line, lease_error, stop_command
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.bounded import bounded_command, channel_timeout

STOP_TIMEOUT_S = 10.0  # bound of a stop command


class LocalTransport:
    """Every node is this machine; commands run through bash, bounded by ``timeout``."""

    def __init__(self, sudo: bool = False) -> None:
        self._sudo = sudo

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None,
            guard: NodeGuard | None = None) -> CommandResult:
        started = time.monotonic()
        try:
            proc = subprocess.run(
                ["bash", "-c", bounded_command(command, timeout_s, sudo=self._sudo, guard=guard)],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=channel_timeout(timeout_s),
                stdin=subprocess.DEVNULL,
                check=False,
            )
            stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:
            stdout = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            stderr, code = f"command did not end within {channel_timeout(timeout_s):g} s", 124
        refused = busy_line(code, stdout) if guard is not None else None
        if refused is not None:
            raise lease_error(node, refused)
        return CommandResult(node, command, stdout, stderr, code, round(time.monotonic() - started, 3))

    def stop_run(self, node: str, run_id: str) -> None:
        self.run(node, stop_command(run_id), STOP_TIMEOUT_S)

    def close(self) -> None:
        """Nothing to release."""
