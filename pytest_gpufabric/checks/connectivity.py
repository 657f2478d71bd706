"""NET-001 / NET-002 / HOST-008 as meshes: what each node runs (``mesh_commands``), what its output says, and the
values one node-pair item judges from the outputs of its two nodes, both ways.

A probe that cannot be read (its section missing or not understood, the node unreachable) is not measured: it
is never a pass, and the item says which probes and why.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pytest_gpufabric.checks.mesh_commands import (
    FPING_INTERVAL_MS,
    JUMBO_PAYLOAD,
    PROBE_PERIOD_MS,
    PROBES,
    REPLY_TIMEOUT_MS,
    SourceProbes,
    ping_mesh_bound_s,
    ping_mesh_command,
    ping_mesh_seconds,
    ssh_mesh_bound_s,
    ssh_mesh_command,
)
from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.measuring.mesh import MeshSpec, NodeMesh
from pytest_gpufabric.parsers.fping import FpingTarget, parse_fping
from pytest_gpufabric.parsers.ping import PingResult, parse_ping
from pytest_gpufabric.parsers.sections import Section, parse_sections
from pytest_gpufabric.transport.base import CommandResult

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Nic, Node

Value = tuple["float | int | None", str, str]  # measured (None: not measured), where, detail


Probe = tuple["float | int", str]  # what one probe gave: a value (loss in %, or an exit status), a short explanation


@dataclass(frozen=True)
class NodeProbes:
    """Every probe one node's output gave, by (source, destination) address, and what could not be read."""

    probes: dict[tuple[str, str], Probe]
    problems: tuple[str, ...]
    nics: tuple[tuple[str, str], ...] = ()  # the node's NICs as (address, label): ``nic_views``


def loss_percent(result: PingResult) -> float | None:
    """Loss of one ping; a ping that could not send at all ("Network is unreachable") counts as 100 %; None (not
    measured) when the output has no statistics line that was understood."""
    if result.fatal_error is not None:
        return 100.0
    return result.loss_percent


def describe(result: PingResult) -> str:
    """A short explanation of a ping result for messages."""
    if result.fatal_error:
        return result.fatal_error
    text = f"{result.received}/{result.transmitted} replies"
    if result.path_mtu is not None:
        text += f", path MTU {result.path_mtu}"
    elif result.error_messages:
        text += f", {result.error_messages[0]}"
    return text


def describe_fping(target: FpingTarget, messages: Sequence[str]) -> str:
    about = next((message for message in messages if target.target in message), None)
    return f"{target.received}/{target.sent} replies (fping)" + (f", {about}" if about else "")


def _section_problem(section: Section, exc: ParseError) -> str:
    return f"`{' '.join(section.label)}` (exit {section.exit_code}): {exc}"


def _unread(where: str, lines: Sequence[tuple[int, str]]) -> list[str]:
    return [f"{where} line {number} not understood: {text[:120]}" for number, text in lines]


def _ping_probes(result: CommandResult) -> NodeProbes:
    """The probes of one node's ping mesh output: one fping section per source, or one ping section per pair."""
    framed = parse_sections(result.stdout)
    probes: dict[tuple[str, str], Probe] = {}
    problems = _unread(f"{result.node}: output", framed.unread)
    for section in framed.sections:
        tool, source = section.label[0], section.label[1] if len(section.label) > 1 else ""
        try:
            if tool == "fping" and len(section.label) == 2:
                fping = parse_fping(section.text)
                problems += _unread(f"{result.node}: fping -S {source}", fping.unread)
                for target in fping.targets.values():  # thousands a node: the same explanation is one string
                    probes[(source, target.target)] = (target.loss_percent, sys.intern(describe_fping(target, fping.messages)))
            elif tool == "ping" and len(section.label) == 3:
                parsed = parse_ping(section.text)
                problems += _unread(f"{result.node}: ping -I {source} {section.label[2]}",
                                    [(u.line, u.text) for u in parsed.unread])
                loss = loss_percent(parsed.facts)
                if loss is None:  # no statistics line understood: the probe is not measured, never a loss of 0
                    problems.append(f"{result.node}: ping -I {source} {section.label[2]}: no statistics line understood")
                else:
                    probes[(source, section.label[2])] = (loss, describe(parsed.facts))
            else:
                problems.append(f"{result.node}: a section `{' '.join(section.label)}` this check does not run")
        except ParseError as exc:
            problems.append(f"{result.node}: {_section_problem(section, exc)}")
    return NodeProbes(probes, tuple(problems))


def _ssh_probes(result: CommandResult) -> NodeProbes:
    """HOST-008: each peer's ssh exit status (keyed by (node, peer address)) and its last line."""
    framed = parse_sections(result.stdout)
    probes: dict[tuple[str, str], Probe] = {}
    for section in framed.sections:
        if section.label[0] == "ssh" and len(section.label) == 2:
            last = next((line.strip() for line in reversed(section.lines) if line.strip()), "")
            probes[(result.node, section.label[1])] = (section.exit_code, last[:200])
    return NodeProbes(probes, tuple(_unread(f"{result.node}: output", framed.unread)))


@dataclass(frozen=True)
class PingMesh:
    """NET-001 (every NIC to every NIC of each peer) or, ``jumbo``, NET-002 (each NIC to the same-rail NIC of each
    peer, 8972 bytes, fragmentation forbidden)."""

    jumbo: bool
    both_ways: bool = True  # S0 2.4.3: any NIC on any host reaches any NIC on any other host

    def sources(self, node: Node, peers: Sequence[Node]) -> list[SourceProbes]:
        return [SourceProbes(str(nic.address), tuple(str(other.address) for peer in peers for other in peer.nics
                                                      if not self.jumbo or other.rail == nic.rail))
                for nic in node.nics]

    def command(self, node: Node, peers: Sequence[Node]) -> tuple[str, float]:
        sources = self.sources(node, peers)
        return ping_mesh_command(sources, jumbo=self.jumbo), ping_mesh_bound_s(sources)

    def facts(self, node: Node, result: CommandResult) -> NodeProbes:
        return replace(_ping_probes(result), nics=nic_views(node))

    def seconds(self, node: Node, peers: Sequence[Node]) -> float | None:
        return ping_mesh_seconds(self.sources(node, peers))

    def how(self) -> str:
        size = f"{JUMBO_PAYLOAD}-byte payload, fragmentation forbidden, " if self.jumbo else ""
        return (f"fping from every NIC at once: {size}{PROBES} probes per pair {PROBE_PERIOD_MS} ms apart, "
                f"{FPING_INTERVAL_MS} ms between sends, replies within {REPLY_TIMEOUT_MS} ms")


@dataclass(frozen=True)
class SshMesh:
    """HOST-008: from the first node of each pair to the second over ssh, non-interactive (as the catalog's
    ``from node A, ssh <node B> true``; a login costs both nodes a key exchange, so one way)."""

    both_ways: bool = False

    def command(self, node: Node, peers: Sequence[Node]) -> tuple[str, float]:
        return ssh_mesh_command([peer.address for peer in peers]), ssh_mesh_bound_s(len(peers))

    def facts(self, node: Node, result: CommandResult) -> NodeProbes:
        return _ssh_probes(result)

    def seconds(self, node: Node, peers: Sequence[Node]) -> float | None:
        return None  # an ssh login's time is the node's own; no document gives one

    def how(self) -> str:
        return "ssh -o BatchMode=yes to every peer"


MESHES: dict[str, PingMesh | SshMesh] = {"NET-001": PingMesh(jumbo=False), "NET-002": PingMesh(jumbo=True),
                                          "HOST-008": SshMesh()}


def mesh_spec(check_id: str) -> MeshSpec:
    """The mesh of a check whose catalog entry says ``measured: mesh``."""
    return MESHES[check_id]


def _node_probes(outputs: dict[str, NodeMesh], node: str) -> tuple[NodeProbes | None, str | None]:
    found = outputs[node]
    if found.error is not None or not isinstance(found.facts, NodeProbes):
        return None, found.error or f"{node}: no mesh output"
    return found.facts, None


def nic_views(node: Node) -> tuple[tuple[str, str], ...]:
    """Each NIC of a node as (address, ``node/nic (address)``)."""
    return tuple((str(nic.address), f"{node.name}/{nic.name} ({nic.address})") for nic in node.nics)


def _views(outputs: dict[str, NodeMesh], node: Node) -> tuple[tuple[str, str], ...]:
    """The node's NIC views formatted once, where its mesh output was read (an item of 8 NICs judges 128 probes;
    formatting an address takes microseconds)."""
    facts = outputs[node.name].facts if node.name in outputs else None
    return facts.nics if isinstance(facts, NodeProbes) and facts.nics else nic_views(node)


def _ways(a: Node, b: Node) -> Iterator[tuple[Node, Node]]:
    yield a, b
    yield b, a


def probe_value(outputs: dict[str, NodeMesh], source: Node, key: tuple[str, str], where: str) -> Value:
    """One probe's value, or None (not measured) with the reason."""
    probes, error = _node_probes(outputs, source.name)
    if probes is None:
        return None, where, str(error)
    probe = probes.probes.get(key)
    if probe is None:
        why = "; ".join(probes.problems[:3]) or "the node's output has no result for it"
        return None, where, why
    return probe[0], where, probe[1]


def ping_values(outputs: dict[str, NodeMesh], a: Node, b: Node) -> list[Value]:
    """NET-001 of a node pair: every NIC of each node to every NIC of the other (S0 2.4.3)."""
    values: list[Value] = []
    for src, dst in _ways(a, b):
        probes, _ = _node_probes(outputs, src.name)
        for address, label in _views(outputs, src):
            for other, other_label in _views(outputs, dst):
                where = f"{label} -> {other_label}"
                probe = probes.probes.get((address, other)) if probes is not None else None
                values.append((probe[0], where, probe[1]) if probe is not None
                              else probe_value(outputs, src, (address, other), where))
    return values


def jumbo_values(outputs: dict[str, NodeMesh], a: Node, nic_a: Nic, b: Node, nic_b: Nic, pair_id: str) -> list[Value]:
    """NET-002 of one NIC pair, both ways (S0 2.6 items 10-11)."""
    ends = ((a, nic_a, b, nic_b), (b, nic_b, a, nic_a))
    return [probe_value(outputs, src, (str(src_nic.address), str(dst_nic.address)),
                        f"{pair_id} ({src.name}/{src_nic.name} {src_nic.address} -> {dst.name}/{dst_nic.name} "
                        f"{dst_nic.address}, {JUMBO_PAYLOAD} bytes, DF)")
            for src, src_nic, dst, dst_nic in ends]


def ssh_values(outputs: dict[str, NodeMesh], a: Node, b: Node) -> list[Value]:
    """HOST-008 of a node pair: a passwordless login from A to B (S2 prerequisites)."""
    return [probe_value(outputs, a, (a.name, b.address), f"{a.name} -> {b.name} ({b.address})")]
