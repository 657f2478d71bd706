"""Switch parsers (EOS, SONiC) on real outputs: S0/S3 samples, NAPALM's EOS capture, SONiC's own test data."""

from __future__ import annotations

import pytest

from tests.outputs import read_output
from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.eos_config import parse_running_config
from pytest_gpufabric.parsers.eos_show import parse_interfaces_json, parse_pfc_counters, parse_pfc_watchdog
from pytest_gpufabric.parsers.sonic_config_db import parse_config_db


def test_eos_s0_running_config_resolves_the_service_profile() -> None:
    config = parse_running_config(read_output("eos-running-config", "running-config-s0-2.5.1.txt")).facts
    assert sorted(config.ports) == ["Ethernet1/1", "Ethernet2/1"]
    port = config.ports["Ethernet2/1"]  # its flowcontrol line has the document's odd indentation
    assert (port.pfc_enabled, port.no_drop_priorities, port.mtu, port.speed, port.fec, port.link_pause) == (
        True, frozenset({3}), 9200, "400g-8", "reed-solomon", "off")
    ecn = port.ecn_on(3)
    assert ecn is not None and (ecn.min_threshold, ecn.max_threshold, ecn.max_mark_probability, ecn.unit) == (
        1000 * 1024, 3000 * 1024, 20, "bytes")
    assert port.ecn_on(0) is None and port.ecn_on(1) is None  # uc-tx-queue 0 and 1 only say `no priority`
    assert port.dscp_trusted and port.dscp_to_tc[26] == 3 and port.dscp_to_tc[48] == 6  # EOS defaults; S0 maps only TC -> DSCP


def test_eos_s3_unindented_interface_config() -> None:
    port = parse_running_config(read_output("eos-running-config", "running-config-s3-pfc.txt")).facts.ports["Ethernet2/1/1"]
    assert (port.pfc_enabled, port.no_drop_priorities, port.mtu, port.speed) == (True, frozenset({3, 4}), 9000, "200G-4")
    # a routed port (no switchport) trusts DSCP by default; no flowcontrol line: the default, off
    assert (port.routed, port.dscp_trusted, port.link_pause, port.ecn_queues) == (True, True, "off", ())


def test_eos_config_without_pfc_shows_nothing_enabled() -> None:
    parsed = parse_running_config(read_output("eos-running-config", "napalm-show-running-config.txt"))
    config = parsed.facts
    assert config.watchdog is None and sorted(config.ports) == ["Ethernet1", "Ethernet2", "Management1"]
    assert all(p.pfc_enabled is False and p.no_drop_priorities == frozenset() for p in config.ports.values())
    assert parsed.unread == ()  # its indentation is damaged by the paste, the sections still read


def test_eos_interfaces_json_napalm_capture() -> None:
    ports = parse_interfaces_json(read_output("eos-interfaces-json", "napalm-show-interfaces.json")).facts
    status, counters = ports["Ethernet2"]
    assert (status.oper_up, status.mtu, status.speed_gbps) == (True, 9214, None)  # bandwidth 0: not shown
    assert (counters.in_discards, counters.out_discards) == (0, 0)
    assert ports["Management1"][0].speed_gbps == 1.0


def test_eos_pfc_counters_and_watchdog_from_s3() -> None:
    counters = parse_pfc_counters(read_output("eos-pfc-counters", "s3-show-priority-flow-control-counters.txt")).facts
    assert (counters["Ethernet3/1/1"].pfc_rx, counters["Ethernet3/1/1"].pfc_tx) == (0, 0)
    watchdog = parse_pfc_watchdog(read_output("eos-pfc-watchdog", "s3-show-priority-flow-control-interfaces.txt")).facts
    assert (watchdog.enabled, watchdog.action, watchdog.timeout_ms, watchdog.recovery_ms, watchdog.polling_ms) == (
        True, "drop", 1000.0, 2000.0, 200.0)


def test_sonic_config_db_of_sonic_utilities() -> None:
    config = parse_config_db(read_output("sonic-config-db", "sonic-utilities-config_db-s6100.json")).facts
    port = config.ports["Ethernet0"]
    assert (port.pfc_enabled, port.no_drop_priorities, port.mtu, port.speed, port.link_pause) == (
        True, frozenset({3, 4}), 9100, "100000", None)
    assert [q.queue for q in port.ecn_queues] == [3, 4]
    ecn = port.ecn_on(3)
    assert ecn is not None and (ecn.min_threshold, ecn.max_threshold, ecn.max_mark_probability) == (1048576, 2097152, 5)
    assert port.dscp_trusted and port.dscp_to_tc[3] == 3 and port.dscp_to_tc[26] == 1 and port.dscp_to_tc[48] == 6  # the AZURE map
    assert config.watchdog is None and len(config.ports) == 66


def test_sonic_config_db_without_port_table_is_refused() -> None:
    with pytest.raises(ParseError, match="no PORT table"):
        parse_config_db(read_output("sonic-config-db", "sonic-utilities-config_qos.json"))
