"""Background commands beside foreground ones: fixed evidence order, bounded stops, replayed stops."""

from __future__ import annotations

import threading
import time

import pytest

from pytest_gpufabric.errors import TransportError
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.beside import STOPPED_EXIT, run_beside


class Nodes:
    """Commands that answer after a delay; a background ``serve`` runs until its ``stop`` (or ends on its own)."""

    def __init__(self, serve_s: float | None, serve_exit: int = 0, fail: str | None = None) -> None:
        self.serve_s, self.serve_exit, self.fail = serve_s, serve_exit, fail
        self.stopped = threading.Event()
        self.ran: list[str] = []

    def run(self, node: str, command: str, timeout_s: float | None, cached: bool) -> CommandResult:
        self.ran.append(command)
        if command == self.fail:
            raise TransportError(node, "unreachable")
        if command == "serve":
            ended_on_its_own = not self.stopped.wait(self.serve_s if self.serve_s is not None else 10)
            return CommandResult(node, command, "served\n", "", self.serve_exit if ended_on_its_own else STOPPED_EXIT, 0.0)
        if command == "stop":
            self.stopped.set()
        return CommandResult(node, command, f"{command}\n", "", 0, 0.0)


def test_evidence_order_is_fixed_whichever_ends_first() -> None:
    nodes = Nodes(serve_s=0.05)  # the server ends after its client
    done = run_beside(nodes.run, [("a", "serve", 5)], [("b", "client", 5)], [("a", "stop", 5)], grace_s=2)
    assert [result.command for result in done.in_order] == ["serve", "client"]
    assert done.stops == (None,) and done.backgrounds[0].exit_code == 0


def test_a_server_outliving_its_client_is_stopped_after_the_grace_time() -> None:
    nodes = Nodes(serve_s=None)
    started = time.monotonic()
    done = run_beside(nodes.run, [("a", "serve", 5)], [("b", "client", 5)], [("a", "stop", 5)], grace_s=0.1)
    assert time.monotonic() - started < 5
    assert [result.command for result in done.in_order] == ["serve", "client", "stop"]
    assert done.backgrounds[0].exit_code == STOPPED_EXIT


def test_a_replayed_stopped_server_replays_its_stop() -> None:
    # A replay answers at once; the recorded status says the live run stopped the server, so the stop is
    # asked for too (the recording has it), as the live run did.
    nodes = Nodes(serve_s=0, serve_exit=STOPPED_EXIT)
    done = run_beside(nodes.run, [("a", "serve", 5)], [("b", "client", 5)], [("a", "stop", 5)], grace_s=2)
    assert [result.command for result in done.in_order] == ["serve", "client", "stop"]


def test_a_foreground_error_stops_every_background_and_propagates() -> None:
    nodes = Nodes(serve_s=None, fail="client")
    with pytest.raises(TransportError, match="unreachable"):
        run_beside(nodes.run, [("a", "serve", 5), ("c", "serve", 5)], [("b", "client", 5)], [("a", "stop", 5), ("c", "stop", 5)],
                   grace_s=2)
    assert nodes.ran.count("stop") == 2


def test_every_background_needs_its_stop() -> None:
    with pytest.raises(ValueError, match="2 background commands need as many stop commands, got 1"):
        run_beside(Nodes(serve_s=0).run, [("a", "serve", 5)] * 2, [("b", "client", 5)], [("a", "stop", 5)], grace_s=1)


def test_servers_start_together_and_clients_run_one_after_the_other() -> None:
    nodes = Nodes(serve_s=0.2)
    started = time.monotonic()
    done = run_beside(nodes.run, [("a", "serve", 5), ("b", "serve", 5)], [("b", "client-1", 5), ("a", "client-2", 5)],
                      [("a", "stop", 5), ("b", "stop", 5)], grace_s=2)
    assert time.monotonic() - started < 1  # both servers at once
    assert [result.command for result in done.in_order] == ["serve", "serve", "client-1", "client-2"]
    assert nodes.ran.index("client-1") < nodes.ran.index("client-2")


def test_after_a_foreground_that_stop_after_accepts_the_rest_is_not_run_and_backgrounds_are_stopped_at_once() -> None:
    nodes = Nodes(serve_s=None)
    started = time.monotonic()
    done = run_beside(nodes.run, [("a", "serve", 5), ("b", "serve", 5)], [("b", "client-1", 5), ("a", "client-2", 5)],
                      [("a", "stop", 5), ("b", "stop", 5)], grace_s=2, stop_after=lambda result: result.command == "client-1")
    assert [result.command for result in done.foregrounds] == ["client-1"] and "client-2" not in nodes.ran
    assert done.stops[0] is not None and time.monotonic() - started < 1.5  # no grace for servers nobody will use
