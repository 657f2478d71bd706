"""Perftest orchestration: the server and its client side by side on two nodes, the server always ended.

One run is two commands at once through the check context (so it is recorded and replayed, in a fixed order):
the server on one node, bounded in time, and the client on the other, which tries again while the server is
not listening yet (``perf_commands``). A server still running shortly after its client ended is stopped by its
PID (a third command). A client that could not connect, found no device or clashed on a port is a setup error
of the item (MeasurementMissing); when the server ended on its own first, the message gives the server's own
words instead (e.g. "Couldn't listen to port 18600"). A run that completed with errors ("Failed status 12") or
with low bandwidth is judged by the check (a failure with the hint).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_gpufabric.checks.perf_commands import (
    CLIENT_TIMEOUT_S,
    CONNECT_TIMEOUT_S,
    END_WAIT_S,
    SERVER_LIFETIME_S,
    PerftestEnd,
    client_command,
    clients_command,
    log_path,
    perftest_words,
    pid_path,
    server_command,
    servers_command,
    stop_all_command,
    stop_command,
)
from pytest_gpufabric.errors import MeasurementMissing, ParseError, Unreachable
from pytest_gpufabric.parsers.perftest import (
    PORT_IN_USE,
    PerftestResult,
    completion_errors,
    max_average_bw,
    parse_perftest,
    primary_error,
    typical_latency_us,
)
from pytest_gpufabric.parsers.sections import parse_sections
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.beside import STOPPED_EXIT, BesideResults, Call, StopAfter
from pytest_gpufabric.verdict import Judged

SETUP_ERROR_KINDS = ("port_in_use", "connection", "no_device")
STEP_SLACK_S = 15.0
CLIENT_CALL_TIMEOUT_S = CONNECT_TIMEOUT_S + CLIENT_TIMEOUT_S + STEP_SLACK_S
TIME_LIMIT_EXITS = (124, 137)  # `timeout` ended the command (SIGTERM, then SIGKILL after its grace)


class Runner(Protocol):
    """What orchestration needs of the check context."""

    def run(self, node: str, command: str, *, timeout_s: float | None = None, cached: bool = False) -> CommandResult: ...

    def run_beside(self, backgrounds: Sequence[Call], foregrounds: Sequence[Call], stops: Sequence[Call],
                   grace_s: float, stop_after: StopAfter | None = None) -> BesideResults: ...


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


def _server_calls(check_id: str, target_id: str, leg: PerftestLeg) -> tuple[Call, Call]:
    """The leg's server command and its stop command."""
    pid_file = pid_path(check_id, target_id, leg.role)
    server = server_command(leg.tool, leg.server, leg.port, pid_file, leg.flags, leg.extra)
    return ((leg.server_node, server, SERVER_LIFETIME_S + STEP_SLACK_S),
            (leg.server_node, stop_command(pid_file), STEP_SLACK_S))


def _client(leg: PerftestLeg) -> str:
    return client_command(leg.tool, leg.client, leg.server.address, leg.port, leg.flags, leg.extra)


def raise_on_setup_error(leg: PerftestLeg, result: PerftestResult, server: CommandResult, server_stopped: bool) -> None:
    """A client that could not connect, found no device or clashed on a port: setup error, not a measurement.
    When the server ended on its own before its client connected, its own words say why."""
    error = primary_error(result)
    if error is None or error.kind not in SETUP_ERROR_KINDS:
        return
    if error.kind == "connection" and not server_stopped and server.exit_code not in TIME_LIMIT_EXITS:
        raise _server_ended_first(leg, server)
    kind = Unreachable if error.kind == "connection" else MeasurementMissing
    raise kind(f"{leg.label}: perftest client could not run ({error.kind}): {error.line}")


def _server_ended_first(leg: PerftestLeg, server: CommandResult) -> MeasurementMissing:
    """The error of a leg whose server ended on its own before its client connected, in the server's own words."""
    said = server.stdout + server.stderr
    clash = next((line.strip() for line in said.splitlines() if PORT_IN_USE.search(line)), None)
    return MeasurementMissing(f"{leg.label}: perftest server on {leg.server_node} ended before its client connected "
                              f"on port {leg.port} (exit {server.exit_code})"
                              + (f" (port clash): {clash}" if clash else f": {_tail(said)}"))


def timed_out(result: CommandResult) -> bool:
    """A client that its time limit ended before it reported (the NICs could not exchange traffic in time)."""
    return result.exit_code in TIME_LIMIT_EXITS


def parse_client(leg: PerftestLeg, result: CommandResult, server: CommandResult, server_stopped: bool) -> PerftestResult:
    if timed_out(result) and not server_stopped and server.exit_code not in (0, *TIME_LIMIT_EXITS):
        raise _server_ended_first(leg, server)  # the client waited for a server that had failed
    if timed_out(result):
        raise Unreachable(f"{leg.label}: perftest client on {result.node} did not end within its time limit "
                          f"(exit {result.exit_code}): the NICs could not exchange traffic in time")
    try:
        parsed = parse_perftest(result.stdout).facts
    except ParseError as exc:
        raise MeasurementMissing(f"{leg.label}: {result.node}: `{result.command}` (exit {result.exit_code}): {exc}") from None
    raise_on_setup_error(leg, parsed, server, server_stopped)
    return parsed


def run_leg(ctx: Runner, check_id: str, target_id: str, leg: PerftestLeg) -> PerftestOutcome:
    """Run one directed perftest: server and client side by side, the server stopped if it outlives its client."""
    return run_legs(ctx, check_id, target_id, [leg])[0]


def run_legs(ctx: Runner, check_id: str, target_id: str, legs: Sequence[PerftestLeg]) -> list[PerftestOutcome]:
    """Run directed perftests one after the other (a NIC pair both ways: S4, then roles swapped). Every
    server is started at once, so a later leg's client finds its server listening when the earlier leg ends;
    legs whose servers would share a node's port run in later groups."""
    outcomes: list[PerftestOutcome] = []
    for group in _groups_by_server_port(legs):
        done = _serve_beside(ctx, check_id, target_id, group, [(leg.client_node, _client(leg), CLIENT_CALL_TIMEOUT_S) for leg in group])
        outcomes += _outcomes(group, done.foregrounds, done)
    return outcomes


def _serve_beside(ctx: Runner, check_id: str, target_id: str, legs: Sequence[PerftestLeg], clients: Sequence[Call]) -> BesideResults:
    """Every leg's server in the background while ``clients`` run, each server stopped if it outlives them."""
    calls = [_server_calls(check_id, target_id, leg) for leg in legs]
    return ctx.run_beside([server for server, _ in calls], clients, [stop for _, stop in calls], END_WAIT_S, timed_out)


def _outcomes(legs: Sequence[PerftestLeg], clients: Sequence[CommandResult], done: BesideResults) -> list[PerftestOutcome]:
    """Each leg's client output, judged knowing whether its server ended on its own (after a client that its time
    limit ended, the later clients were not run: that client's error stands for the NIC pair)."""
    outcomes = [PerftestOutcome(leg, parse_client(leg, client, served, stop is not None), served.stdout)
                for leg, client, served, stop in zip(legs, clients, done.backgrounds, done.stops)]
    if len(outcomes) < len(legs):
        raise MeasurementMissing(f"{legs[len(outcomes)].label}: perftest client not run")
    return outcomes


def _groups_by_server_port(legs: Sequence[PerftestLeg]) -> list[list[PerftestLeg]]:
    """Consecutive legs, split where a leg's server would listen on a port of a node that an earlier server
    of its group listens on."""
    groups: list[list[PerftestLeg]] = []
    for leg in legs:
        if not groups or (leg.server_node, leg.port) in {(other.server_node, other.port) for other in groups[-1]}:
            groups.append([])
        groups[-1].append(leg)
    return groups


def concurrent_client_command(commands: Sequence[str], logs: Sequence[str]) -> str:
    """All clients at once, each into its own log, waiting for every one (PERF-006, S2 multithread)."""
    started = " ".join(f"{{ {command}; }} > {log} 2>&1 &" for command, log in zip(commands, logs))
    return f"{started} wait"


def run_concurrent_legs(ctx: Runner, check_id: str, target_id: str, legs: Sequence[PerftestLeg]) -> list[PerftestOutcome]:
    """Every leg's server, and beside them every client at once on the client node (legs share one client node)."""
    client_nodes = {leg.client_node for leg in legs}
    if len(client_nodes) != 1:
        raise ValueError(f"concurrent legs must share one client node, got {sorted(client_nodes)}")
    node = legs[0].client_node
    client_logs = [log_path(check_id, target_id, f"{leg.role}-client") for leg in legs]
    clients = concurrent_client_command([_client(leg) for leg in legs], client_logs)
    done = _serve_beside(ctx, check_id, target_id, legs, [(node, clients, CLIENT_CALL_TIMEOUT_S)])
    printed = [ctx.run(node, f"cat {client_log}; rm -f {client_log}", timeout_s=STEP_SLACK_S) for client_log in client_logs]
    return _outcomes(legs, printed, done)


def bandwidth_judgements(outcome: PerftestOutcome, name: str = "average_bw_gbps") -> list[Judged]:
    """What a bandwidth check judges of one leg: completion errors (status 12) or the best average bandwidth.

    "average >= X Gb/s at some point during the test" (S4): the highest BW average over all message sizes. A
    bidirectional run (``-b``) prints the sum of both directions (perftest adds the other side's report to its
    own); each direction's share is printed only with ``--report-both``, which perftest ignores with ``-a``: the
    detail says so.
    """
    errors = completion_errors(outcome.client)
    if errors:
        return [("completion_errors", len(errors), outcome.leg.label, errors[0].line)]
    both = ", both directions summed (perftest -b prints no direction's share with -a)" if outcome.client.bidirectional else ""
    return [(name, max_average_bw(outcome.client), outcome.leg.label, f"{outcome.leg.tool} best average over all sizes{both}")]


def latency_judgements(outcome: PerftestOutcome, name: str = "typical_latency_us") -> list[Judged]:
    """The smallest size's t_typical (S3 Table 6 quotes unloaded latency) or the completion errors."""
    errors = completion_errors(outcome.client)
    if errors:
        return [("completion_errors", len(errors), outcome.leg.label, errors[0].line)]
    size = min(row.bytes for row in outcome.client.latency_rows) if outcome.client.latency_rows else None
    return [(name, typical_latency_us(outcome.client, size), outcome.leg.label, f"t_typical at {size} bytes")]


# ---------------------------------------------------------------- every rail of a node pair, one command per node and step

PairLegs = tuple[str, Sequence[PerftestLeg]]  # a NIC pair's id and its legs, in order
PairOutcomes = dict[str, "list[PerftestOutcome] | MeasurementMissing"]  # NIC pair id -> its outcomes, or why none


def _slot_groups(pairs: Sequence[PairLegs]) -> list[list[list[tuple[str, PerftestLeg]]]]:
    """The legs of all rails by step (the k-th leg of every NIC pair), steps grouped while no two servers of a
    group would listen on one port of one node (then that step starts a new group, after the one before)."""
    steps = max((len(legs) for _, legs in pairs), default=0)
    slots = [[(pair_id, legs[k]) for pair_id, legs in pairs if k < len(legs)] for k in range(steps)]
    groups: list[list[list[tuple[str, PerftestLeg]]]] = []
    for slot in slots:
        ports = {(leg.server_node, leg.port) for group_slot in (groups[-1] if groups else []) for _, leg in group_slot}
        if not groups or any((leg.server_node, leg.port) in ports for _, leg in slot):
            groups.append([])
        groups[-1].append(slot)
    return groups


def run_node_pair_legs(ctx: Runner, check_id: str, pairs: Sequence[PairLegs]) -> PairOutcomes:
    """Every rail of a node pair at once: per group of steps, one command per node starts all its servers
    (``servers_command``), and per step one command per node runs all its clients (``clients_command``); a step
    starts when the clients of the step before have ended. Servers still running ``END_WAIT_S`` after the last
    client are stopped by their PID files (one command per node). Each NIC pair keeps its own outcomes or error.

    A clients command that its time limit ended (the NIC pair's bound: a client waiting for NICs that cannot
    exchange traffic) ends the node pair's run at once, as one NIC pair's run ends after such a client: its
    clients that had not ended could not exchange traffic in time, the later clients are not run (each NIC pair
    left says so), and the servers are stopped without waiting."""
    outcomes: PairOutcomes = {pair_id: [] for pair_id, _ in pairs}
    for number, group in enumerate(groups := _slot_groups(pairs)):
        legs = [entry for slot in group for entry in slot]
        servers: dict[str, list[tuple[str, PerftestLeg]]] = {}
        for pair_id, leg in legs:
            servers.setdefault(leg.server_node, []).append((pair_id, leg))
        backgrounds, stops = [], []
        for node, served in servers.items():
            pid_files = [pid_path(check_id, pair_id, leg.role) for pair_id, leg in served]
            command = servers_command([(f"server {leg.label}", pid, perftest_words(leg.tool, leg.server, leg.port, leg.flags, leg.extra))
                                       for (_, leg), pid in zip(served, pid_files)])
            backgrounds.append((node, command, SERVER_LIFETIME_S + STEP_SLACK_S))
            stops.append((node, stop_all_command(pid_files), STEP_SLACK_S))
        foregrounds, ran_by = [], []
        for slot in group:
            clients: dict[str, list[tuple[str, PerftestLeg]]] = {}
            for entry in slot:
                clients.setdefault(entry[1].client_node, []).append(entry)
            for node, found in clients.items():
                foregrounds.append((node, clients_command([(f"client {leg.label}", _client(leg)) for _, leg in found]),
                                    CLIENT_CALL_TIMEOUT_S))
                ran_by.append(found)
        done = ctx.run_beside(backgrounds, foregrounds, stops, END_WAIT_S, timed_out)
        _group_outcomes(legs, done, outcomes, ran_by)
        if len(done.foregrounds) < len(foregrounds):
            _not_run([entry for later in groups[number + 1:] for slot in later for entry in slot], outcomes, done.foregrounds[-1])
            break
    return outcomes


def _not_run(legs: Sequence[tuple[str, PerftestLeg]], outcomes: PairOutcomes, ended: CommandResult) -> None:
    """The NIC pairs of legs not run after a clients command that its time limit ended."""
    for pair_id, leg in legs:
        if not isinstance(outcomes[pair_id], MeasurementMissing):
            outcomes[pair_id] = MeasurementMissing(f"{leg.label}: perftest client not run: the clients on {ended.node} "
                                                   f"before it did not end within their time limit (exit {ended.exit_code})")


def _sections(results: Sequence[CommandResult]) -> dict[str, CommandResult]:
    """Each framed program's output as a result of its own (label -> node, label, output, exit status); a command
    that printed nothing (ended before any of its programs) has none."""
    found: dict[str, CommandResult] = {}
    for result in results:
        if not result.stdout.strip():
            continue
        for section in parse_sections(result.stdout).sections:
            label = " ".join(section.label)
            found[label] = CommandResult(result.node, label, section.text, "", section.exit_code, result.duration_s)
    return found


def _group_outcomes(legs: Sequence[tuple[str, PerftestLeg]], done: BesideResults, outcomes: PairOutcomes,
                    ran_by: Sequence[Sequence[tuple[str, PerftestLeg]]]) -> None:
    """Each leg's client judged knowing its server's own words; a leg that cannot be read costs its NIC pair. A
    client missing from a clients command that its time limit ended did not end in time (its NICs could not
    exchange traffic); the legs of a clients command not run were not measured."""
    servers, clients = _sections(done.backgrounds), _sections(done.foregrounds)
    command_of = {(pair_id, leg.label): result for result, found in zip(done.foregrounds, ran_by) for pair_id, leg in found}
    for pair_id, leg in legs:
        found = outcomes[pair_id]
        if isinstance(found, MeasurementMissing):
            continue
        command = command_of.get((pair_id, leg.label))
        if command is None:
            _not_run([(pair_id, leg)], outcomes, done.foregrounds[-1])
            continue
        client, served = clients.get(f"client {leg.label}"), servers.get(f"server {leg.label}")
        if client is None and timed_out(command):
            outcomes[pair_id] = Unreachable(f"{leg.label}: perftest client on {command.node} did not end within its time "
                                            f"limit (exit {command.exit_code}): the NICs could not exchange traffic in time")
            continue
        if client is None or served is None:
            missing = "client" if client is None else "server"
            outcomes[pair_id] = MeasurementMissing(f"{leg.label}: the {missing}'s output is not in its node's command output")
            continue
        try:
            found.append(PerftestOutcome(leg, parse_client(leg, client, served, served.exit_code == STOPPED_EXIT), served.stdout))
        except MeasurementMissing as exc:
            outcomes[pair_id] = exc
