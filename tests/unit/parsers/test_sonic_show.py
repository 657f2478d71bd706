"""SONiC ``show`` tables on SONiC's own test data (sonic-utilities): every fact a careful reader sees, the rows
that do not fit refused with their line numbers, and the variants of the parsing rule."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.sonic_show import (
    parse_interfaces_counters,
    parse_interfaces_status,
    parse_pfc_counters,
    parse_pfcwd_config,
    parse_pfcwd_stats,
    parse_queue_counters,
)
from pytest_gpufabric.switches.facts import QueueWatchdog
from tests.outputs import read_output
from tests.variants import (
    END,
    assert_fused_cell_refused,
    assert_same_facts,
    assert_shift_never_misreads,
    same_facts_variants,
)

VARIANT_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_interfaces_status_of_one_asic() -> None:
    parsed = parse_interfaces_status(read_output("sonic-interfaces-status", "sonic-utilities-intfutil.txt"))
    status = parsed.facts
    assert (status["Ethernet0"].oper_up, status["Ethernet0"].speed_gbps, status["Ethernet0"].mtu, status["Ethernet0"].fec) == (
        False, 25.0, 9100, "rs")
    assert status["Ethernet16"].speed_gbps == 0.1 and status["Ethernet32"].oper_up
    assert status["PortChannel1001"].oper_up is False  # Oper N/A: a port channel without members
    assert parsed.unread == ()


def test_interfaces_counters_rx_tx_drops() -> None:
    parsed = parse_interfaces_counters(read_output("sonic-interfaces-counters", "sonic-utilities-portstat.txt"))
    counters = parsed.facts
    assert (counters["Ethernet0"].in_discards, counters["Ethernet0"].out_discards) == (100, None)  # TX_DRP N/A
    assert (counters["Ethernet4"].in_discards, counters["Ethernet8"].in_discards, counters["Ethernet9"].in_discards) == (1000, 10, 0)
    assert parsed.unread == ()


def test_pfc_counters_per_priority_with_thousands_separators() -> None:
    counters = parse_pfc_counters(read_output("sonic-pfc-counters", "sonic-utilities-pfcstat.txt")).facts
    port = counters["Ethernet4"]
    assert port.pfc_rx_priorities == {0: 1400, 1: 401, 2: 402, 3: 403, 4: 404, 5: 405, 6: 406, 7: 407}
    assert port.pfc_tx_priorities[0] == 1410 and port.pfc_tx_priorities[3] == 413
    assert (port.pfc_rx, port.pfc_tx) == (1400 + sum(range(401, 408)), 1410 + sum(range(411, 418)))


def test_queue_counters_of_one_asic() -> None:
    parsed = parse_queue_counters(read_output("sonic-queue-counters", "sonic-utilities-queuestat.txt"))
    port = parsed.facts["Ethernet0"]
    assert port.queue_drops["UC3"] == 19 and port.queue_drops["MC10"] == 74 and port.queue_drops["UC0"] == 0
    assert "ALL20" not in port.queue_drops  # N/A: no counter, not zero
    assert sorted(parsed.facts) == ["Ethernet0", "Ethernet4", "Ethernet8"] and parsed.unread == ()


def test_queue_counters_of_several_asics() -> None:
    parsed = parse_queue_counters(read_output("sonic-queue-counters", "sonic-utilities-multi-asic.txt"))
    assert parsed.facts["Ethernet4"].queue_drops["UC3"] == 37
    assert parsed.facts["Ethernet-BP0"].queue_drops["MC13"] == 11
    assert parsed.unread == ()


def test_pfcwd_stats_per_queue() -> None:
    parsed = parse_pfcwd_stats(read_output("sonic-pfcwd-stats", "sonic-utilities-pfcwd.txt"))
    assert {name: c.watchdog_storms for name, c in parsed.facts.items()} == {"Ethernet0": 1, "Ethernet4": 2, "Ethernet8": 3}
    assert parsed.facts["Ethernet0"].watchdog["3"] == QueueWatchdog("stormed", 1, 0, 100, 300, 100, 300)


@pytest.mark.parametrize(("name", "ports", "polling"), [
    ("sonic-utilities-with-history.txt", ["Ethernet0", "Ethernet4", "Ethernet8"], 600.0),
    ("sonic-utilities-four-columns.txt", ["Ethernet0", "Ethernet4", "Ethernet8"], 600.0),
    ("sonic-utilities-multi-asic.txt", ["Ethernet0", "Ethernet4", "Ethernet-BP0", "Ethernet-BP4", "Ethernet-BP256",
                                        "Ethernet-BP260"], 199.0),
])
def test_pfcwd_config_four_and_five_columns(name: str, ports: list[str], polling: float) -> None:
    parsed = parse_pfcwd_config(read_output("sonic-pfcwd-config", name))
    assert list(parsed.facts) == ports and parsed.unread == ()
    first = parsed.facts[ports[0]]
    assert (first.enabled, first.action, first.polling_ms) == (True, "drop", polling)
    assert first.timeout_ms in (600.0, 200.0) and first.recovery_ms == first.timeout_ms


def test_a_row_that_does_not_fit_costs_only_itself() -> None:
    text = read_output("sonic-pfc-counters", "sonic-utilities-pfcstat.txt")
    lines = text.split("\n")
    lines[3] = lines[3].replace("  1,400", "1,400  ")  # the cell moved left out of its column
    parsed = parse_pfc_counters("\n".join(lines))
    assert [(u.line, u.scope) for u in parsed.unread] == [(4, "Ethernet4")]
    assert "Ethernet4" in parsed.facts and parsed.facts["Ethernet4"].pfc_rx_priorities == {}  # its Tx row is read
    assert parsed.facts["Ethernet8"].pfc_rx_priorities[7] == 807


def test_another_commands_output_is_refused() -> None:
    with pytest.raises(ParseError, match=r"cannot parse sonic-pfcwd-stats output: no PORT:QUEUE row .*line 1: 'Usage: show"):
        parse_pfcwd_stats("Usage: show [OPTIONS] COMMAND [ARGS]...\nError: No such command \"pfcwd\".\n")


TABLES = [
    (parse_interfaces_status, "sonic-interfaces-status", "sonic-utilities-intfutil.txt", 3, 3),
    (parse_interfaces_counters, "sonic-interfaces-counters", "sonic-utilities-portstat.txt", 3, 6),
    (parse_pfc_counters, "sonic-pfc-counters", "sonic-utilities-pfcstat.txt", 3, 1),
    (parse_queue_counters, "sonic-queue-counters", "sonic-utilities-queuestat.txt", 5, 4),
    (parse_pfcwd_stats, "sonic-pfcwd-stats", "sonic-utilities-pfcwd.txt", 3, 2),
    (parse_pfcwd_config, "sonic-pfcwd-config", "sonic-utilities-with-history.txt", 4, 2),
]
IDS = [tool for _, tool, _, _, _ in TABLES]


@pytest.mark.parametrize(("parse", "tool", "name", "row", "cell"), TABLES, ids=IDS)
def test_a_fused_cell_refuses_its_row(parse, tool: str, name: str, row: int, cell: int) -> None:  # type: ignore[no-untyped-def]
    assert_fused_cell_refused(parse, read_output(tool, name), row, cell)


@pytest.mark.parametrize(("parse", "tool", "name", "row", "cell"), TABLES, ids=IDS)
@pytest.mark.parametrize("by", [-6, -2, 2, 6])
def test_a_shifted_cell_is_never_misread(parse, tool: str, name: str, row: int, cell: int, by: int) -> None:  # type: ignore[no-untyped-def]
    assert_shift_never_misreads(parse, read_output(tool, name), row, cell, by)


def _variant_test(parse, tool: str, name: str):  # type: ignore[no-untyped-def]
    text = read_output(tool, name)

    @given(variant=same_facts_variants(text, insert_at=(0, END)))
    @VARIANT_SETTINGS
    def check(variant: str) -> None:
        assert_same_facts(parse, text, variant)

    return check


@pytest.mark.parametrize(("parse", "tool", "name"), [(p, t, n) for p, t, n, _, _ in TABLES], ids=IDS)
def test_tabs_trailing_spaces_crlf_blank_and_warning_lines_give_the_same_facts(parse, tool: str, name: str) -> None:  # type: ignore[no-untyped-def]
    _variant_test(parse, tool, name)()
