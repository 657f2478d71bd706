"""Perftest orchestration: a server in the background on one node, a client on another, always cleaned up.

The sequence of one run, three commands through the check context (so it is recorded and replayed):

1. start the server bounded in time, in the background, its output in a log named after the item, keep its PID,
   and wait (bounded, on the node) until it listens on its port; a server that never listens is a setup error
   of the item (MeasurementMissing naming the port and the server's own words, e.g. "Couldn't listen to port
   18600");
2. run the client to the end;
3. in every case stop the server by its PID (after a bounded wait for its end), keeping its log, and remove the log.

A client that could not connect or found no device is a setup error as well; a run that completed with
errors ("Failed status 12") or with low bandwidth is judged by the check (a failure with the hint).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_gpufabric.checks.perf_commands import (
    CLIENT_TIMEOUT_S,
    KILL_AFTER_S,
    END_WAIT_S,
    READY_TIMEOUT_S,
    PerftestEnd,
    client_command,
    log_path,
    parse_pid,
    server_command,
    stop_command,
)
from pytest_gpufabric.errors import GpufabricError, MeasurementMissing, ParseError
from pytest_gpufabric.parsers.perftest import (
    PORT_IN_USE,
    PerftestResult,
    completion_errors,
    max_average_bw,
    parse_perftest,
    primary_error,
    typical_latency_us,
)
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.verdict import Judged

SETUP_ERROR_KINDS = ("port_in_use", "connection", "no_device")
STEP_SLACK_S = 15.0


class Runner(Protocol):
    """What orchestration needs of the check context."""

    def run(self, node: str, command: str, *, timeout_s: float | None = None, cached: bool = False) -> CommandResult: ...


@dataclass(frozen=True)
class PerftestLeg:
    """One directed run: the server end on ``server_node``, the client end on ``client_node``.

    ``label`` names the direction in messages (``node01/bnxt_re0->node02/bnxt_re0``), ``role`` the log file.
    """

    label: str
    role: str
    tool: str
    server_node: str
    server: PerftestEnd
    client_node: str
    client: PerftestEnd
    port: int
    flags: tuple[str, ...]
    extra: tuple[str, ...] = ()


@dataclass(frozen=True)
class PerftestOutcome:
    """The client's parsed output and the server's log text of one leg."""

    leg: PerftestLeg
    client: PerftestResult
    server_log: str


def _tail(text: str, lines: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:]) or "(empty)"


def start_server(ctx: Runner, leg: PerftestLeg, log: str) -> int:
    """Start the leg's server and wait until it listens; its PID. MeasurementMissing when it did not start or
    never listened (then it is stopped, its own words in the message)."""
    started = ctx.run(leg.server_node, server_command(leg.tool, leg.server, leg.port, log, leg.flags, leg.extra),
                      timeout_s=READY_TIMEOUT_S + STEP_SLACK_S)
    pid = parse_pid(started.stdout)
    if pid is None:
        raise MeasurementMissing(f"{leg.label}: perftest server on {leg.server_node} did not start "
                                 f"(exit {started.exit_code}): {_tail(started.stdout + started.stderr)}")
    if started.exit_code == 0:
        return pid
    said = stop_server(ctx, leg, pid, log)
    why = "ended before listening" if started.exit_code == 3 else "did not listen in time"
    clash = next((line.strip() for line in said.splitlines() if PORT_IN_USE.search(line)), None)
    raise MeasurementMissing(f"{leg.label}: perftest server on {leg.server_node} {why} on port {leg.port}"
                             + (f" (port clash): {clash}" if clash else f": {_tail(said)}"))


def stop_server(ctx: Runner, leg: PerftestLeg, pid: int, log: str) -> str:
    """Stop the leg's server (after a bounded wait for its end) and remove its log; the log's text."""
    return ctx.run(leg.server_node, stop_command(pid, log), timeout_s=END_WAIT_S + STEP_SLACK_S).stdout


def _stop_quietly(ctx: Runner, leg: PerftestLeg, pid: int, log: str) -> None:
    """Stop a server on a path that already fails (its own error must not hide the first one)."""
    try:
        stop_server(ctx, leg, pid, log)
    except GpufabricError:
        pass


def raise_on_setup_error(leg: PerftestLeg, result: PerftestResult) -> None:
    """A client that could not connect, found no device or clashed on a port: setup error, not a measurement."""
    error = primary_error(result)
    if error is not None and error.kind in SETUP_ERROR_KINDS:
        raise MeasurementMissing(f"{leg.label}: perftest client could not run ({error.kind}): {error.line}")


def parse_client(leg: PerftestLeg, result: CommandResult) -> PerftestResult:
    try:
        parsed = parse_perftest(result.stdout)
    except ParseError as exc:
        raise MeasurementMissing(f"{leg.label}: {result.node}: `{result.command}` (exit {result.exit_code}): {exc}") from None
    raise_on_setup_error(leg, parsed)
    return parsed


def run_leg(ctx: Runner, check_id: str, target_id: str, leg: PerftestLeg) -> PerftestOutcome:
    """Run one directed perftest (steps 1-3 of the module docstring)."""
    log = log_path(check_id, target_id, leg.role)
    pid = start_server(ctx, leg, log)
    try:
        client = ctx.run(leg.client_node, client_command(leg.tool, leg.client, leg.server.address, leg.port, leg.flags, leg.extra),
                         timeout_s=CLIENT_TIMEOUT_S + KILL_AFTER_S + STEP_SLACK_S)
    except GpufabricError:
        _stop_quietly(ctx, leg, pid, log)
        raise
    server_log = stop_server(ctx, leg, pid, log)
    return PerftestOutcome(leg, parse_client(leg, client), server_log)


def concurrent_client_command(commands: Sequence[str], logs: Sequence[str]) -> str:
    """All clients at once, each into its own log, waiting for every one (PERF-006, S2 multithread)."""
    started = " ".join(f"{command.removesuffix(' 2>&1')} > {log} 2>&1 &" for command, log in zip(commands, logs))
    return f"{started} wait"


def run_concurrent_legs(ctx: Runner, check_id: str, target_id: str, legs: Sequence[PerftestLeg]) -> list[PerftestOutcome]:
    """Start every leg's server, then every client at once on the client node (legs share one client node)."""
    client_nodes = {leg.client_node for leg in legs}
    if len(client_nodes) != 1:
        raise ValueError(f"concurrent legs must share one client node, got {sorted(client_nodes)}")
    started: list[tuple[PerftestLeg, int, str]] = []
    stopped = False
    try:
        for leg in legs:
            log = log_path(check_id, target_id, leg.role)
            started.append((leg, start_server(ctx, leg, log), log))
        client_logs = [log_path(check_id, target_id, f"{leg.role}-client") for leg in legs]
        commands = [client_command(leg.tool, leg.client, leg.server.address, leg.port, leg.flags, leg.extra) for leg in legs]
        node = legs[0].client_node
        ctx.run(node, concurrent_client_command(commands, client_logs), timeout_s=CLIENT_TIMEOUT_S + KILL_AFTER_S + STEP_SLACK_S)
        clients = [ctx.run(node, f"cat {client_log}; rm -f {client_log}", timeout_s=STEP_SLACK_S) for client_log in client_logs]
        server_logs = [stop_server(ctx, leg, pid, log) for leg, pid, log in started]
        stopped = True
        return [PerftestOutcome(leg, parse_client(leg, client), server_log)
                for (leg, _, _), client, server_log in zip(started, clients, server_logs)]
    finally:
        if not stopped:
            for leg, pid, log in started:
                _stop_quietly(ctx, leg, pid, log)


def bandwidth_judgements(outcome: PerftestOutcome, name: str = "average_bw_gbps") -> list[Judged]:
    """What a bandwidth check judges of one leg: completion errors (status 12) or the best average bandwidth.

    "average >= X Gb/s at some point during the test" (S4): the highest BW average over all message sizes.
    """
    errors = completion_errors(outcome.client)
    if errors:
        return [("completion_errors", len(errors), outcome.leg.label, errors[0].line)]
    return [(name, max_average_bw(outcome.client), outcome.leg.label, f"{outcome.leg.tool} best average over all sizes")]


def latency_judgements(outcome: PerftestOutcome, name: str = "typical_latency_us") -> list[Judged]:
    """The smallest size's t_typical (S3 Table 6 quotes unloaded latency) or the completion errors."""
    errors = completion_errors(outcome.client)
    if errors:
        return [("completion_errors", len(errors), outcome.leg.label, errors[0].line)]
    size = min(row.bytes for row in outcome.client.latency_rows) if outcome.client.latency_rows else None
    return [(name, typical_latency_us(outcome.client, size), outcome.leg.label, f"t_typical at {size} bytes")]
