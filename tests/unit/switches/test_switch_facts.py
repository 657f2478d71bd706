"""Pure helpers of the switch checks: counter merging, ECN marking mode, the reads per switch OS."""

from __future__ import annotations

import json

import pytest

from pytest_gpufabric.checks.switches import ecn_marking, merge_counters
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.switches.commands import READS, reads_for
from pytest_gpufabric.switches.facts import PortCounters, QueueWatchdog
from pytest_gpufabric.switches.readonly import is_read_only


def test_counters_of_several_outputs_merge_per_port() -> None:
    merged = merge_counters([
        {"Ethernet0": PortCounters("Ethernet0", in_discards=3, out_discards=None)},
        {"Ethernet0": PortCounters("Ethernet0", pfc_rx=10, pfc_tx=4), "Ethernet8": PortCounters("Ethernet8", pfc_rx=1)},
        {"Ethernet0": PortCounters("Ethernet0", watchdog={"3": QueueWatchdog("operational", 0, 0)})},
    ])
    assert merged["Ethernet0"] == PortCounters("Ethernet0", 10, 4, 3, None, watchdog={"3": QueueWatchdog("operational", 0, 0)})
    assert merged["Ethernet0"].watchdog_storms == 0
    assert merged["Ethernet8"] == PortCounters("Ethernet8", pfc_rx=1)


def test_counters_survive_the_snapshot_file() -> None:
    counters = PortCounters("Ethernet0", 1, 2, 3, 4, {3: 5}, {3: 6}, {"UC3": 7}, {"3": QueueWatchdog("stormed", 1, 0, 2, 3, 4, 5)})
    assert PortCounters.from_plain(json.loads(json.dumps(counters.as_plain()))) == counters


@pytest.mark.parametrize(("low", "high", "probability", "mode"), [
    (1000 * 1024, 3000 * 1024, 20, "probabilistic"),  # S0 2.5.1
    (500 * 1024, 1500 * 1024, 25, "probabilistic"),  # S3 probabilistic example
    (256 * 1024, 256 * 1024, 100, "deterministic"),  # S3 deterministic example
    (55, 90, 100, "probabilistic"),  # S0 2.5.3 (Junos drop profile: 0 % at 55 % fill, 100 % at 90 %)
])
def test_marking_modes_of_the_documents(low: int, high: int, probability: int, mode: str) -> None:
    assert ecn_marking(low, high, probability) == mode


@pytest.mark.parametrize(("low", "high", "probability"), [(300, 200, 20), (256, 256, 20), (None, 200, 20), (100, 200, None), (100, 200, 0)])
def test_other_markings_are_named_with_their_values(low: int | None, high: int | None, probability: int | None) -> None:
    assert ecn_marking(low, high, probability).startswith("unclear (min ")


def test_every_read_of_every_os_is_a_read_only_form() -> None:
    for switch_os, reads in READS.items():
        commands = [reads.config[0], reads.status[0], reads.watchdog[0], *(command for command, _ in reads.counters)]
        assert all(is_read_only(switch_os, command) for command in commands), switch_os


def test_every_switch_os_of_the_inventory_has_its_reads() -> None:
    assert sorted(READS) == ["arista", "juniper", "sonic"]


def test_an_os_without_parsers_is_a_missing_measurement() -> None:
    with pytest.raises(MeasurementMissing, match="no parsers for ios switches yet"):
        reads_for("leaf9", "ios")
