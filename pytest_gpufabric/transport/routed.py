"""Send some machines' commands through one transport and all others through another."""

from __future__ import annotations

from collections.abc import Collection

from pytest_gpufabric.exclusive.leases import NodeGuard
from pytest_gpufabric.transport.base import CommandResult, Transport


class RoutedTransport:
    """``routed`` machines (e.g. the switches of a ``transport: local`` site) use ``special``; the rest ``default``."""

    def __init__(self, routed: Collection[str], special: Transport, default: Transport) -> None:
        self._routed = frozenset(routed)
        self._special = special
        self._default = default

    def _for(self, node: str) -> Transport:
        return self._special if node in self._routed else self._default

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None,
            guard: NodeGuard | None = None) -> CommandResult:
        return self._for(node).run(node, command, timeout_s, item=item, guard=guard)

    def stop_run(self, node: str, run_id: str) -> None:
        self._for(node).stop_run(node, run_id)

    def connect(self, node: str) -> None:
        connect = getattr(self._for(node), "connect", None)
        if connect is not None:
            connect(node)

    def close(self) -> None:
        self._special.close()
        self._default.close()
