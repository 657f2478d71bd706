"""Running commands for a check and keeping every result as evidence, in order (the ``Runner`` of the checks)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.beside import BesideResults, Call, StopAfter, run_beside

RunFunc = Callable[[str, str, "float | None", bool], CommandResult]  # node, command, timeout, cached


class EvidenceRunner:
    """Mixin of the check context and of a NIC pair's runner: ``_run`` reaches the nodes, ``commands`` keeps
    what ran."""

    _run: RunFunc
    commands: list[CommandResult]

    def run(self, node: str, command: str, *, timeout_s: float | None = None, cached: bool = False) -> CommandResult:
        """Run a read-only ``command`` on ``node``; ``cached`` reuses an identical earlier run in this process."""
        result = self._run(node, command, timeout_s, cached)
        self.commands.append(result)
        return result

    def run_beside(self, backgrounds: Sequence[Call], foregrounds: Sequence[Call], stops: Sequence[Call],
                   grace_s: float, stop_after: StopAfter | None = None) -> BesideResults:
        """Servers in the background while their clients run (``transport.beside``), kept in a fixed order."""
        done = run_beside(self._run, backgrounds, foregrounds, stops, grace_s, stop_after)
        self.commands.extend(done.in_order)
        return done
