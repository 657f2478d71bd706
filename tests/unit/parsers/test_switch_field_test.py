"""The defects the independent field test found on switch outputs the project had never seen (tests/switch_corpus.py,
FIELD_TEST), one test each: the misreads, the real outputs refused, the crash; and the variants of the new forms."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_gpufabric.parsers.eos_config import parse_running_config
from pytest_gpufabric.parsers.eos_show import parse_interfaces_text
from pytest_gpufabric.parsers.junos_config import parse_configuration
from pytest_gpufabric.parsers.junos_show import parse_interfaces
from pytest_gpufabric.parsers.sonic_show import (
    parse_interfaces_counters,
    parse_interfaces_status,
    parse_pfc_counters,
    parse_pfcwd_config,
    parse_pfcwd_stats,
    parse_queue_counters,
)
from tests.junos_display_set import display_set
from tests.outputs import read_output
from tests.variants import assert_never_misread, flat

VARIANTS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------------------------------------------------ SONiC

def test_blank_lines_between_the_rows_of_a_paste_give_the_same_facts() -> None:
    pasted = read_output("sonic-interfaces-counters", "buildimage-19644-400g-blank-lines.txt")
    parsed = parse_interfaces_counters(pasted)
    assert {name: c.in_discards for name, c in parsed.facts.items()} == {
        "Ethernet0": 1, "Ethernet4": 1, "Ethernet8": 1, "Ethernet12": 1}
    assert flat(parsed) == flat(parse_interfaces_counters(re.sub(r"\n\n+", "\n", pasted)))


def test_a_capture_that_lost_its_dash_line_is_read_by_its_header_words() -> None:
    parsed = parse_interfaces_counters(read_output("sonic-interfaces-counters", "buildimage-9193-z9332.txt"))
    ethernet0 = parsed.facts["Ethernet0"]
    assert (ethernet0.in_discards, ethernet0.out_discards) == (0, 9268210)


@pytest.mark.parametrize(("parse", "tool", "name"), [
    (parse_pfcwd_stats, "sonic-pfcwd-stats", "utilities-1077-empty.txt"),
    (parse_pfcwd_config, "sonic-pfcwd-config", None),
])
def test_a_header_without_rows_is_an_empty_answer_not_a_refusal(parse, tool: str, name: str | None) -> None:  # type: ignore[no-untyped-def]
    text = read_output(tool, name) if name else (
        "  PORT    ACTION    DETECTION TIME    RESTORATION TIME    HISTORY\n"
        "------  --------  ----------------  ------------------  ---------\n")
    parsed = parse(text)
    assert parsed.facts == {} and parsed.unread == ()


def test_voq_rows_are_kept_under_their_system_port_never_a_local_one() -> None:
    facts = parse_queue_counters(read_output("sonic-queue-counters", "sonic-utilities-voq.txt")).facts
    assert facts["testsw|Ethernet0"].queue_drops["VOQ7"] == 95
    assert "Ethernet0" not in facts


def _doubled_line_ends(text: str) -> str:
    return text.replace("\n", "\n\n")


SONIC_TABLES = [
    (parse_interfaces_status, "sonic-interfaces-status", "buildimage-15148-7250-lc.txt"),
    (parse_interfaces_counters, "sonic-interfaces-counters", "utilities-1013-multi-asic.txt"),
    (parse_pfc_counters, "sonic-pfc-counters", "sonic-utilities-pfcstat.txt"),
    (parse_queue_counters, "sonic-queue-counters", "sonic-utilities-multi-asic.txt"),
    (parse_pfcwd_stats, "sonic-pfcwd-stats", "utilities-682-operational.txt"),
    (parse_pfcwd_config, "sonic-pfcwd-config", "sonic-utilities-multi-asic.txt"),
]


@pytest.mark.parametrize(("parse", "tool", "name"), SONIC_TABLES, ids=[t for _, t, _ in SONIC_TABLES])
def test_every_line_end_doubled_gives_the_same_facts(parse, tool: str, name: str) -> None:  # type: ignore[no-untyped-def]
    text = read_output(tool, name)
    assert flat(parse(_doubled_line_ends(text))) == flat(parse(text))


@pytest.mark.parametrize(("parse", "tool", "name"), SONIC_TABLES, ids=[t for _, t, _ in SONIC_TABLES])
def test_a_table_whose_dash_line_is_lost_is_never_misread(parse, tool: str, name: str) -> None:  # type: ignore[no-untyped-def]
    """Without its dash line a table is placed by its header words: every value read is the original's (a row that
    no longer fits is refused), and a table of right-aligned numbers keeps all its values."""
    text = read_output(tool, name)
    lines = text.split("\n")
    dashless = "\n".join(line for line in lines if not re.fullmatch(r"[- ]*-[- ]*", line.strip() or "x"))
    original = parse(text)
    try:
        variant = parse(dashless)
    except Exception as exc:  # noqa: BLE001 - only a refusal is allowed
        assert type(exc).__name__ == "ParseError", exc
        return
    assert_never_misread(original, variant)


# -------------------------------------------------------------------------------------------------------------- EOS

def test_the_defaults_show_running_config_all_prints_are_understood() -> None:
    parsed = parse_running_config(read_output("eos-running-config", "batfish-arista_interface_show_run_all_2.cfg"))
    assert parsed.unread == ()  # `no priority-flow-control priority 3`, `default qos trust`, the tx-queues' no-forms ...
    routed, switched = parsed.facts.ports["Ethernet1/1"], parsed.facts.ports["Ethernet1/3"]
    assert (routed.pfc_enabled, routed.no_drop_priorities, routed.ecn_queues, routed.dscp_trusted) == (False, frozenset(), (), True)
    assert routed.dscp_to_tc is not None and routed.dscp_to_tc[26] == 3  # `service-policy type pdp` does not classify
    assert (switched.dscp_trusted, switched.speed, switched.link_pause) == (False, "auto", "off")


def test_a_subinterface_is_routed_and_trusts_dscp() -> None:
    ports = parse_running_config(read_output("eos-running-config", "avd-cv-pathfinder-edge1.cfg")).facts.ports
    for name in ("Ethernet52.142", "Ethernet1/49.3"):
        assert ports[name].routed is True and ports[name].dscp_trusted is True, name


def test_an_interface_line_a_paste_shifted_starts_its_own_interface() -> None:
    """The paste put a space before `Management0 is up`: its MTU, speed and 47 input discards are Management0's,
    never Loopback0's (the interface above it)."""
    facts = parse_interfaces_text(read_output("eos-interfaces", "fakenos-ceos1.txt")).facts
    loopback, management = facts["Loopback0"], facts["Management0"]
    assert (loopback[0].mtu, loopback[0].speed_gbps, loopback[1].in_discards) == (65535, None, None)
    assert (management[0].mtu, management[0].speed_gbps, management[1].in_discards) == (1500, 1.0, 47)


def test_two_interfaces_merged_by_a_damaged_output_leave_their_values_unknown() -> None:
    text = ("Ethernet1 is up, line protocol is up (connected)\n  Ethernet MTU 9214 bytes, BW 100000000 kbit\n"
            "     0 input errors, 0 CRC, 0 alignment, 0 symbol, 0 input discards\n"
            "  IP MTU 1500 bytes (default), BW 1000000 kbit\n"
            "     0 input errors, 0 CRC, 0 alignment, 0 symbol, 12 input discards\n")
    parsed = parse_interfaces_text(text)
    status, counters = parsed.facts["Ethernet1"]
    assert (status.mtu, counters.in_discards) == (None, None)
    assert {u.line for u in parsed.unread} == {2, 3, 4, 5}
