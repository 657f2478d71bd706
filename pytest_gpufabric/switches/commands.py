"""Which read-only commands give each fact family on each switch OS, and the parser of each output."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.reading import Parsed
from pytest_gpufabric.parsers import eos_config, eos_show, junos_config, junos_show, sonic_config_db, sonic_show
from pytest_gpufabric.switches.facts import PortCounters, PortStatus, SwitchConfig, Watchdog


InterfaceFacts = dict[str, tuple[PortStatus, PortCounters]]


def _statuses(parsed: Parsed[InterfaceFacts]) -> Parsed[dict[str, PortStatus]]:
    return parsed.map(lambda ports: {name: status for name, (status, _) in ports.items()})


def _counters(parsed: Parsed[InterfaceFacts]) -> Parsed[dict[str, PortCounters]]:
    return parsed.map(lambda ports: {name: counters for name, (_, counters) in ports.items()})


def _watchdog(parsed: Parsed[SwitchConfig]) -> Parsed[Watchdog | None]:
    return parsed.map(lambda config: config.watchdog)


def _eos_status(text: str) -> Parsed[dict[str, PortStatus]]:
    return _statuses(eos_show.parse_interfaces_json(text))


def _eos_discards(text: str) -> Parsed[dict[str, PortCounters]]:
    return _counters(eos_show.parse_interfaces_json(text))


def _sonic_watchdog(text: str) -> Parsed[Watchdog | None]:
    return _watchdog(sonic_config_db.parse_config_db(text))


def _junos_status(text: str) -> Parsed[dict[str, PortStatus]]:
    return _statuses(junos_show.parse_interfaces(text))


def _junos_counters(text: str) -> Parsed[dict[str, PortCounters]]:
    return _counters(junos_show.parse_interfaces(text))


def _junos_watchdog(text: str) -> Parsed[Watchdog | None]:
    return _watchdog(junos_config.parse_configuration(text))


@dataclass(frozen=True)
class SwitchReads:
    """The commands of one switch OS: configuration, port status, counter outputs (merged), PFC watchdog."""

    config: tuple[str, Callable[[str], Parsed[SwitchConfig]]]
    status: tuple[str, Callable[[str], Parsed[dict[str, PortStatus]]]]
    counters: tuple[tuple[str, Callable[[str], Parsed[dict[str, PortCounters]]]], ...]
    watchdog: tuple[str, Callable[[str], Parsed[Any]]]


READS: dict[str, SwitchReads] = {
    "arista": SwitchReads(
        config=("show running-config", eos_config.parse_running_config),
        status=("show interfaces | json", _eos_status),
        counters=(("show interfaces | json", _eos_discards),
                  ("show priority-flow-control counters", eos_show.parse_pfc_counters)),
        watchdog=("show priority-flow-control", eos_show.parse_pfc_watchdog),
    ),
    "sonic": SwitchReads(
        config=("sonic-cfggen -d --print-data", sonic_config_db.parse_config_db),
        status=("show interfaces status", sonic_show.parse_interfaces_status),
        counters=(("show interfaces counters", sonic_show.parse_interfaces_counters),
                  ("show pfc counters", sonic_show.parse_pfc_counters),
                  ("show queue counters", sonic_show.parse_queue_counters),
                  ("show pfcwd stats", sonic_show.parse_pfcwd_stats)),
        watchdog=("sonic-cfggen -d --print-data", _sonic_watchdog),
    ),
    "juniper": SwitchReads(
        config=("show configuration", junos_config.parse_configuration),
        status=("show interfaces extensive", _junos_status),
        counters=(("show interfaces extensive", _junos_counters),),
        watchdog=("show configuration", _junos_watchdog),
    ),
}


def reads_for(switch: str, switch_os: str) -> SwitchReads:
    """The reads of ``switch_os``; an OS without parsers yet is a missing measurement, never a pass."""
    try:
        return READS[switch_os]
    except KeyError:
        supported = ", ".join(sorted(READS))
        raise MeasurementMissing(f"{switch}: no parsers for {switch_os} switches yet (supported: {supported})") from None
