"""The transport contract: run one shell command on one node and return what it printed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pytest_gpufabric.exclusive.leases import NodeGuard


@dataclass(frozen=True)
class CommandResult:
    """What one command did on one node. ``command`` is the logical command line, as recorded
    (without the remote ``timeout`` wrapper or ``sudo`` prefix that the live transport adds)."""

    node: str
    command: str
    stdout: str
    stderr: str
    exit_code: int
    duration_s: float

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class Transport(Protocol):
    """Runs commands on nodes. Raises ``TransportError`` when the command could not be run at all;
    a command that ran and failed is a ``CommandResult`` with a non-zero exit code."""

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None,
            guard: NodeGuard | None = None) -> CommandResult:
        """Run ``command`` on ``node``, bounded by ``timeout_s`` on the node itself.
        ``item`` names the test item asking (used by recording/replay only); a traffic command's ``guard`` gives
        it a PID file and node leases on a live node (``exclusive.leases``; ``LeaseError`` when refused)."""
        ...

    def stop_run(self, node: str, run_id: str) -> None:
        """Stop every guarded command of ``run_id`` still running on ``node`` (live nodes only; never recorded)."""
        ...

    def close(self) -> None: ...
