"""Which read-only commands give each fact family on each switch OS, and the parser of each output."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers import eos_config, eos_show, sonic_config_db, sonic_show
from pytest_gpufabric.switches.facts import PortCounters, PortStatus, SwitchConfig, Watchdog


def _eos_status(text: str) -> dict[str, PortStatus]:
    return {name: status for name, (status, _) in eos_show.parse_interfaces_json(text).items()}


def _eos_discards(text: str) -> dict[str, PortCounters]:
    return {name: counters for name, (_, counters) in eos_show.parse_interfaces_json(text).items()}


def _sonic_watchdog(text: str) -> Watchdog | None:
    return sonic_config_db.parse_config_db(text).watchdog


@dataclass(frozen=True)
class SwitchReads:
    """The commands of one switch OS: configuration, port status, counter outputs (merged), PFC watchdog."""

    config: tuple[str, Callable[[str], SwitchConfig]]
    status: tuple[str, Callable[[str], dict[str, PortStatus]]]
    counters: tuple[tuple[str, Callable[[str], dict[str, PortCounters]]], ...]
    watchdog: tuple[str, Callable[[str], Any]]


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
                  ("show pfcwd stats", sonic_show.parse_pfcwd_stats)),
        watchdog=("sonic-cfggen -d --print-data", _sonic_watchdog),
    ),
}


def reads_for(switch: str, switch_os: str) -> SwitchReads:
    """The reads of ``switch_os``; an OS without parsers yet is a missing measurement, never a pass."""
    try:
        return READS[switch_os]
    except KeyError:
        supported = ", ".join(sorted(READS))
        raise MeasurementMissing(f"{switch}: no parsers for {switch_os} switches yet (supported: {supported})") from None
