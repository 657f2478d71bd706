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
from pytest_gpufabric.switches.facts import PortConfig, PortCounters, PortStatus, SwitchConfig, Watchdog
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
    """The port's configuration; a port the configuration does not list is a missing measurement."""
    found = switch_config(gpufabric, switch).port(port)
    if found is None:
        raise MeasurementMissing(f"{switch.name}: port {port} (from the inventory) is not in the switch configuration")
    return found


def port_status(gpufabric: CheckContext, switch: Switch, port: str) -> PortStatus:
    command, parse = reads_for(switch.name, switch.os).status
    found = _parsed(gpufabric, switch, command, parse).get(port)
    if found is None:
        raise MeasurementMissing(f"{switch.name}: port {port} (from the inventory) is not in `{command}`")
    return found


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


def watchdog(gpufabric: CheckContext, switch: Switch) -> Watchdog | None:
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


def ecn_marking(queue_min: int | None, queue_max: int | None, probability: int | None) -> str:
    """``probabilistic`` (DCQCN-P: marking ramps up between a minimum and a higher maximum threshold, S0 2.5),
    ``deterministic`` (DCQCN-D: one threshold, every packet above it marked, S3 "ECN Configuration"), else
    ``unclear`` with the values."""
    if queue_min is not None and queue_max is not None and probability is not None and 0 < probability <= 100:
        if queue_min < queue_max:
            return "probabilistic"
        if queue_min == queue_max and probability == 100:
            return "deterministic"
    return f"unclear (min {queue_min}, max {queue_max}, probability {probability})"


def queue_marking(port: PortConfig, queue: int) -> str:
    """How ``queue`` of ``port`` marks ECN: ``off``, ``probabilistic``, ``deterministic`` or ``unclear (...)``."""
    ecn = port.ecn_on(queue)
    return ecn_marking(ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.max_mark_probability) if ecn else "off"


def no_drop_text(port: PortConfig) -> str:
    """The port's no-drop priorities as ``3,4`` (``none`` without PFC)."""
    return ",".join(map(str, sorted(port.no_drop_priorities))) or "none"


def nic_side(node: str, nic: str, source: str) -> str:
    """``node01/bnxt_re0 (bnxt_re.conf)``: names one side of a NIC <-> switch comparison with its source."""
    return f"{node}/{nic} ({source})"
