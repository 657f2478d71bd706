"""A transport wrapper that lets only read-only command forms reach a switch (live, recorded or replayed)."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_gpufabric.exclusive.leases import NodeGuard
from pytest_gpufabric.switches.readonly import require_read_only
from pytest_gpufabric.transport.base import CommandResult, Transport


class ReadOnlySwitches:
    """Implements ``Transport`` over ``inner``; a command for a switch that is not one of its OS's
    read-only forms raises ``ConfigurationRefused`` before anything is sent or looked up."""

    def __init__(self, inner: Transport, switch_os: Mapping[str, str]) -> None:
        self.inner = inner
        self._switch_os = dict(switch_os)

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None,
            guard: NodeGuard | None = None) -> CommandResult:
        if node in self._switch_os:
            require_read_only(node, self._switch_os[node], command)
        return self.inner.run(node, command, timeout_s, item=item, guard=guard)

    def stop_run(self, node: str, run_id: str) -> None:
        if node not in self._switch_os:
            self.inner.stop_run(node, run_id)

    def connect(self, node: str) -> None:
        """Open the machine's connection where the inner transport has connections."""
        connect = getattr(self.inner, "connect", None)
        if connect is not None:
            connect(node)

    def close(self) -> None:
        self.inner.close()
