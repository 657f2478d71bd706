"""Leaf switch checks (SW-*, NSW-*): read a switch's facts through the check context, and the NIC-side
intent they are compared with."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from typing import TypeVar

from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.inventory import Switch
from pytest_gpufabric.switches.commands import reads_for
from pytest_gpufabric.switches.facts import EcnQueue, PortConfig, PortCounters, PortStatus, SwitchConfig, Watchdog, find_port
from pytest_gpufabric.transport.base import CommandResult

T = TypeVar("T")
RunFunc = Callable[[str, str], CommandResult]


@dataclass(frozen=True)
class QosIntent:
    """The RoCE QoS values the site's NICs are configured with (the profile's DRV-009 bnxt_re.conf values)."""

    roce_pri: int
    roce_dscp: int
    cnp_pri: int
    cnp_dscp: int


def qos_intent(profile: Profile) -> QosIntent:
    """RoCE/CNP priority and DSCP as the profile expects them in bnxt_re.conf (S0 2.2.1.3, 2.5)."""
    return QosIntent(**{f.name: int(profile.get("DRV-009", f.name).value) for f in fields(QosIntent)})


def _parsed(gpufabric: CheckContext, switch: Switch, command: str, parse: Callable[[str], T]) -> T:
    result = gpufabric.run(switch.name, command, cached=True)
    if result.exit_code != 0:
        raise MeasurementMissing(f"{switch.name}: `{command}` failed (exit {result.exit_code}): {result.stderr.strip()[:200]}")
    return gpufabric.parse(parse, result, cached=True)


def switch_config(gpufabric: CheckContext, switch: Switch) -> SwitchConfig:
    command, parse = reads_for(switch.name, switch.os).config
    return _parsed(gpufabric, switch, command, parse)


def port_config(gpufabric: CheckContext, switch: Switch, port: str) -> PortConfig:
    """The port's configuration; a port the configuration does not list is a missing measurement (naming the
    unread lines that could be it). The item's missing values name the unread lines of the port's sections."""
    found = switch_config(gpufabric, switch).port(port)
    gpufabric.focus(found.sources if found is not None else (port,))
    return gpufabric.require(found, f"port {port} (from the inventory) in the configuration of {switch.name}")


def port_status(gpufabric: CheckContext, switch: Switch, port: str) -> PortStatus:
    command, parse = reads_for(switch.name, switch.os).status
    found = find_port(_parsed(gpufabric, switch, command, parse), port)
    return gpufabric.require(found, f"port {port} (from the inventory) in `{command}` of {switch.name}", scopes=(port,))


def port_mtu(gpufabric: CheckContext, switch: Switch, port: str) -> tuple[int, str]:
    """The port MTU and the command it comes from: the operational MTU where the port status shows one, else
    the configured one; neither is a missing measurement."""
    reads = reads_for(switch.name, switch.os)
    status = port_status(gpufabric, switch, port)
    if status.mtu is not None:
        return status.mtu, reads.status[0]
    configured = port_config(gpufabric, switch, port).mtu
    if configured is None:
        raise MeasurementMissing(f"{switch.name}: no MTU for port {port} in `{reads.status[0]}` or `{reads.config[0]}`")
    return configured, reads.config[0]


def watchdog(gpufabric: CheckContext, switch: Switch, port: str) -> Watchdog | None:
    """The PFC watchdog of ``port``: its own where the OS configures it per port (SONiC PFC_WD, a Junos congestion
    notification profile), else the switch's."""
    own = port_config(gpufabric, switch, port).watchdog
    if own is not None:
        return own
    command, parse = reads_for(switch.name, switch.os).watchdog
    return _parsed(gpufabric, switch, command, parse)


def merge_counters(parts: Iterable[dict[str, PortCounters]]) -> dict[str, PortCounters]:
    """One PortCounters per port from several outputs (each fills the fields it shows)."""
    merged: dict[str, PortCounters] = {}
    for part in parts:
        for name, counters in part.items():
            base = merged.get(name, PortCounters(name))
            filled = {f.name: getattr(counters, f.name) for f in fields(PortCounters)
                      if f.name != "name" and getattr(counters, f.name) not in (None, {})}
            merged[name] = replace(base, **filled)
    return merged


def read_counters(run: RunFunc, switch: Switch, parse_output: Callable[[Callable[[str], T], CommandResult], T]) -> dict[str, PortCounters]:
    """Every port's counters, from each counter command of the switch's OS."""
    parts = []
    for command, parse in reads_for(switch.name, switch.os).counters:
        result = run(switch.name, command)
        if result.exit_code != 0:
            raise MeasurementMissing(f"{switch.name}: `{command}` failed (exit {result.exit_code}): {result.stderr.strip()[:200]}")
        parts.append(parse_output(parse, result))
    return merge_counters(parts)


def counter_evidence(gpufabric: CheckContext, switch: Switch, outputs: Iterable[CommandResult]) -> None:
    """The switch's counter outputs (before and after the traffic tests) as the item's evidence, with the lines
    their parsers did not understand."""
    parsers = dict(reads_for(switch.name, switch.os).counters)
    for result in outputs:
        gpufabric.commands.append(result)
        if result.command in parsers and result.exit_code == 0:
            try:
                gpufabric.parse(parsers[result.command], result)
            except MeasurementMissing:
                pass  # the snapshot already says why this switch's counters are missing


def ecn_marking(queue_min: float | None, queue_max: float | None, probability: int | None) -> str:
    """``probabilistic`` (DCQCN-P: marking ramps up between a minimum and a higher maximum threshold, S0 2.5),
    ``deterministic`` (DCQCN-D: one threshold, every packet above it marked, S3 "ECN Configuration"), else
    ``unclear`` with the values."""
    if queue_min is not None and queue_max is not None and probability is not None and 0 < probability <= 100:
        if queue_min < queue_max:
            return "probabilistic"
        if queue_min == queue_max and probability == 100:
            return "deterministic"
    return f"unclear (min {queue_min}, max {queue_max}, probability {probability})"


def queue_marking(port: PortConfig, queue: int) -> str | None:
    """How ``queue`` of ``port`` marks ECN: ``off``, ``probabilistic``, ``deterministic`` or ``unclear (...)``;
    None where the port's ECN settings are not known."""
    if port.ecn_queues is None:
        return None
    ecn = port.ecn_on(queue)
    return ecn_marking(ecn.min_threshold, ecn.max_threshold, ecn.max_mark_probability) if ecn else "off"


def ecn_text(ecn: EcnQueue | None, queue: int | None) -> str:
    """``tx-queue 3: min 1024000 bytes, max 3072000 bytes, max mark probability 20%`` (or why there is none)."""
    if queue is None:
        return "no egress queue carries the RoCE priority"
    if ecn is None:
        return f"no ECN on queue {queue}"
    return (f"queue {queue}: min {ecn.min_threshold:g} {ecn.unit}, max {ecn.max_threshold:g} {ecn.unit}, "
            f"max mark probability {ecn.max_mark_probability}%")


def no_drop_text(port: PortConfig) -> str:
    """The port's no-drop priorities as ``3,4`` (``none`` without PFC, ``not known``)."""
    if port.no_drop_priorities is None:
        return "not known"
    return ",".join(map(str, sorted(port.no_drop_priorities))) or "none"


def nic_side(node: str, nic: str, source: str) -> str:
    """``node01/bnxt_re0 (bnxt_re.conf)``: names one side of a NIC <-> switch comparison with its source."""
    return f"{node}/{nic} ({source})"


Judgeable = tuple[str, "int | None", "str | None", str]


def _delta(first: int | None, last: int | None) -> int | None:
    """``last - first``; None when either is missing or the counter went backwards (cleared during the run)."""
    if first is None or last is None or last < first:
        return None
    return last - first


def _priority_deltas(before: dict[int, int], after: dict[int, int]) -> str:
    moved = {p: _delta(before.get(p), after[p]) for p in sorted(after) if p in before}
    return ", ".join(f"{p}: {d}" for p, d in moved.items() if d) or "none"


def counter_deltas(before: PortCounters, after: PortCounters, where: str) -> list[Judgeable]:
    """SW-007's values of one port: its discards, the drops of each egress queue, and each queue's PFC watchdog
    storms and drops during the traffic tests; PFC frames per priority (or per port) in the details."""
    if after.pfc_rx_priorities or after.pfc_tx_priorities:
        pfc = (f"PFC frames received per priority {_priority_deltas(before.pfc_rx_priorities, after.pfc_rx_priorities)}, "
               f"sent {_priority_deltas(before.pfc_tx_priorities, after.pfc_tx_priorities)} during the traffic tests")
    else:
        pfc = (f"PFC frames received {_delta(before.pfc_rx, after.pfc_rx)}, sent {_delta(before.pfc_tx, after.pfc_tx)} "
               "during the traffic tests")
    discards = [d for d in (_delta(before.in_discards, after.in_discards), _delta(before.out_discards, after.out_discards))
                if d is not None]
    values: list[Judgeable] = [("discards_delta", sum(discards) if discards else None, None, pfc)]
    for queue in sorted(set(before.queue_drops) & set(after.queue_drops), key=_queue_order):
        values.append(("queue_drops_delta", _delta(before.queue_drops[queue], after.queue_drops[queue]),
                       f"{where} queue {queue}", ""))
    for queue in sorted(set(before.watchdog) & set(after.watchdog), key=_queue_order):
        first, last = before.watchdog[queue], after.watchdog[queue]
        status = f"watchdog status {last.status or 'not shown'}"
        values.append(("watchdog_storms_delta", _delta(first.storms_detected, last.storms_detected), f"{where} queue {queue}",
                       status))
        drops = [_delta(getattr(first, f), getattr(last, f)) for f in ("tx_drop", "rx_drop")]
        if all(d is not None for d in drops):
            values.append(("watchdog_drops_delta", sum(d for d in drops if d is not None), f"{where} queue {queue}", status))
    return values


def _queue_order(label: str) -> tuple[str, int]:
    """``UC3`` before ``UC10``, ``3`` before ``10``."""
    prefix = label.rstrip("0123456789")
    return prefix, int(label[len(prefix):] or 0)
