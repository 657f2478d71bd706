"""The node scripts of the mesh checks, as pure functions: one bounded command per node probes all its peers.

NET-001 and NET-002 (S0 2.4.3, 2.6 items 10-11): from every NIC of the node, every destination NIC at once. With
``fping`` installed on the node, one fping per source NIC probes all its destinations (``-S`` the source address,
as S0's ``ping -I <src ip>``); fping paces its own probes (``FPING_INTERVAL_MS`` between two sends, at most
1,000 a second per source NIC) and counts the replies per destination. Without fping, one iputils ``ping`` per
(source, destination), at most ``PING_AT_ONCE`` at a time. HOST-008 (S2 prerequisites, S0 8.7.1): one
``ssh -o BatchMode=yes <peer> true`` per peer, at most ``SSH_AT_ONCE`` at a time.

What the documents give and is kept: S0 2.4.3 pings each NIC of a host from each NIC of the other with the
default payload (56 bytes, no Don't Fragment flag) and names the pair that fails; NET-002 sends 8972-byte
payloads (9000 MTU - 20 - 8, S0 2.6 items 10-11) with fragmentation forbidden (``-M do`` for ping, ``-M`` for
fping). S0's script sends 1 probe per pair; the plugin sends ``PROBES`` (5) per pair, so a path that drops
packets now and then shows loss too. The documents give no interval: probes of one pair are
``PROBE_PERIOD_MS`` apart, a reply counts within ``REPLY_TIMEOUT_MS``.

Each probe's output is printed whole after a header (``parsers.sections``), in a fixed order (the order of
the probes given), so the same probes give the same command and the same framing, live or replayed.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_gpufabric.checks.node_scripts import runner

IPV4 = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}")

PROBES = 5  # probes per (source, destination) pair
PROBE_PERIOD_MS = 100  # between two probes of one pair (fping -p; ping -i 0.2, iputils' floor for non-root)
FPING_INTERVAL_MS = 1  # between two sends of one fping (-i)
REPLY_TIMEOUT_MS = 1000  # a reply later than this is a lost probe (fping -t, ping -W 1)
PING_DEADLINE_S = 10  # ping -w: a ping ends after this, whatever happens
JUMBO_PAYLOAD = 8972  # S0 2.6 item 11: 9000 MTU - 20 (IPv4) - 8 (ICMP)
PING_AT_ONCE = 32  # iputils pings one node runs at once (without fping)
SSH_AT_ONCE = 16  # ssh probes one node runs at once
SSH_CONNECT_TIMEOUT_S = 10
SLACK_S = 30.0


@dataclass(frozen=True)
class SourceProbes:
    """One source NIC address of a node and the destination addresses it probes, in order."""

    source: str
    destinations: tuple[str, ...]


def _words(values: Sequence[str]) -> str:
    return " ".join(shlex.quote(value) for value in values)


def address_words(addresses: Sequence[str]) -> str:
    """IPv4 addresses as bash words, compact: the addresses of one /24 share their first three octets through
    brace expansion (``10.100.0.{2..251}``, ``10.100.1.{1,7,9}``); bash expands them without a process. A node's
    script holds every peer NIC's address and must stay below Linux's 128 KiB limit of one argument (``bash -c
    SCRIPT``): at 1,024 nodes x 8 NICs the plain list alone would take 98 KiB, this form a few KiB. The
    expansion gives the addresses grouped by /24 in order of first appearance, each group in ascending order."""
    groups: dict[str, list[int]] = {}
    for address in addresses:
        if IPV4.fullmatch(address) is None:
            raise ValueError(f"not an IPv4 address: {address!r}")
        prefix, last = address.rsplit(".", 1)
        groups.setdefault(prefix, []).append(int(last))
    return " ".join(f"{prefix}.{_octets(sorted(set(lasts)))}" for prefix, lasts in groups.items())


def _octets(values: list[int]) -> str:
    """``5`` alone; several as ``{1..4,7,9}`` (runs of three or more as ranges)."""
    if len(values) == 1:
        return str(values[0])
    parts: list[str] = []
    start = previous = values[0]
    for value in [*values[1:], None]:
        if value is not None and value == previous + 1:
            previous = value
            continue
        parts += [f"{start}..{previous}"] if previous - start >= 2 else [str(n) for n in range(start, previous + 1)]
        if value is not None:
            start = previous = value
    if len(parts) == 1 and ".." in parts[0]:
        return "{" + parts[0] + "}"
    return "{" + ",".join("{" + part + "}" if ".." in part else part for part in parts) + "}"


def ping_mesh_command(sources: Sequence[SourceProbes], *, jumbo: bool = False) -> str:
    """Every source NIC probes its destinations at once: fping where installed, else iputils ping (NET-001;
    ``jumbo``: 8972-byte payloads, fragmentation forbidden, NET-002)."""
    fping_size = f" -b {JUMBO_PAYLOAD} -M" if jumbo else ""
    ping_size = f" -s {JUMBO_PAYLOAD} -M do" if jumbo else ""
    lines = [runner(PING_AT_ONCE)]
    first_with: dict[tuple[str, ...], int] = {}  # a destination list given once, however many sources probe it
    for index, probes in enumerate(sources):
        same = first_with.setdefault(tuple(sorted(probes.destinations)), index)
        targets = f'("${{t{same}[@]}}")' if same != index else f"({address_words(probes.destinations)})"
        lines.append(f"s{index}={shlex.quote(probes.source)}; t{index}={targets}")
    fping = [f'job "fping $s{i}" -- fping -q -c {PROBES} -p {PROBE_PERIOD_MS} -i {FPING_INTERVAL_MS} '
             f'-t {REPLY_TIMEOUT_MS}{fping_size} -S "$s{i}" "${{t{i}[@]}}"' for i in range(len(sources))]
    ping = [f'for t in "${{t{i}[@]}}"; do job "ping $s{i} $t" -- ping -I "$s{i}" -c {PROBES} -i 0.2 '
            f'-W {REPLY_TIMEOUT_MS // 1000} -w {PING_DEADLINE_S}{ping_size} "$t"; done' for i in range(len(sources))]
    lines.append("if command -v fping > /dev/null 2>&1; then")
    lines += [f"  {line}" for line in fping] or ["  :"]
    lines.append("else")
    lines += [f"  {line}" for line in ping] or ["  :"]
    lines.append("fi")
    lines.append("sections")
    return "\n".join(lines)


def ssh_mesh_command(peers: Sequence[str]) -> str:
    """HOST-008: a non-interactive ssh (no password prompt possible) running ``true`` on every peer."""
    return "\n".join([
        runner(SSH_AT_ONCE),
        f"for t in {_words(peers)}; do job \"ssh $t\" -- ssh -o BatchMode=yes -o ConnectTimeout={SSH_CONNECT_TIMEOUT_S} "
        f'"$t" true < /dev/null; done',
        "sections",
    ])


def ping_mesh_seconds(sources: Sequence[SourceProbes]) -> float:
    """How long a node's ping mesh takes with fping: its busiest source NIC's sends, paced, plus the last
    probe's period and reply timeout (all source NICs run at once)."""
    busiest = max((len(probes.destinations) for probes in sources), default=0)
    if busiest == 0:
        return 0.0
    sends = max(busiest * PROBES * FPING_INTERVAL_MS, (PROBES - 1) * PROBE_PERIOD_MS + busiest * FPING_INTERVAL_MS)
    return (sends + REPLY_TIMEOUT_MS) / 1000


def ping_mesh_bound_s(sources: Sequence[SourceProbes]) -> float:
    """The bound of a node's ping mesh command on the node: the longer of its two ways (fping, or the pings in
    waves of ``PING_AT_ONCE``), with slack."""
    pings = sum(len(probes.destinations) for probes in sources)
    return max(2 * ping_mesh_seconds(sources), math.ceil(pings / PING_AT_ONCE) * PING_DEADLINE_S) + SLACK_S


def ssh_mesh_bound_s(peers: int) -> float:
    """The bound of a node's HOST-008 command: its waves of ssh probes, each at most the connect timeout."""
    return math.ceil(peers / SSH_AT_ONCE) * (SSH_CONNECT_TIMEOUT_S + 5) + SLACK_S
