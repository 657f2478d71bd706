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


# ------------------------------------------------------------------------------------------------------------ Junos

JVD_CONFIGS = ["jvd-aiml-backend-leaf1_qfx5240-64od.conf", "jvd-5stage-compute-leaf1_qfx5120-48ym.conf",
               "jvd-5stage_evpn_vxlan-superspine1_qfx5230-64cd.conf", "jvd-5stage_evpn_vxlan-compute-spine1_qfx5210-64c.conf",
               "s0-2.5.3-class-of-service.txt"]


@pytest.mark.parametrize("name", JVD_CONFIGS)
@pytest.mark.parametrize("split_lists", [False, True])
def test_display_set_gives_the_facts_of_the_hierarchical_form(name: str, split_lists: bool) -> None:
    hierarchical = read_output("junos-configuration", name)
    as_set = parse_configuration(display_set(hierarchical, split_lists=split_lists))
    assert flat(as_set) == flat(parse_configuration(hierarchical))


def test_a_real_display_set_configuration_is_read() -> None:
    ports = parse_configuration(read_output("junos-configuration", "jvd-automation-cu_du_qfx5210.set")).facts.ports
    assert set(ports) == {"et-0/0/2", "et-0/0/4", "xe-0/0/8:0"} and ports["et-0/0/2"].pfc_enabled is False


INACTIVE = read_output("junos-configuration", "jvd-aiml-backend-leaf1_qfx5240-64od.conf").replace(
    "            congestion-notification-profile cnp;", "            inactive: congestion-notification-profile cnp;")


def test_an_inactive_statement_is_not_in_effect() -> None:
    assert INACTIVE.count("inactive: ") == 1
    port = parse_configuration(INACTIVE).facts.ports["et-0/0/0:0"]
    assert (port.pfc_enabled, port.no_drop_priorities) == (False, frozenset())
    assert parse_configuration(display_set(INACTIVE, split_lists=True)).facts.ports["et-0/0/0:0"].pfc_enabled is False


def test_a_list_that_runs_over_two_lines_is_one_statement() -> None:
    parsed = parse_configuration(read_output("junos-configuration", "jvd-3stage_dc-server-leaf1_qfx5120-48y.conf"))
    assert parsed.unread == () and parsed.facts.ports["xe-0/0/0"].mtu == 9216


@pytest.mark.parametrize("line", [";", "{", "   ;", "drop-profile-map;"])
def test_a_statement_without_its_words_is_unread_not_a_crash(line: str) -> None:
    text = read_output("junos-configuration", "jvd-aiml-backend-leaf1_qfx5240-64od.conf")
    damaged = text.replace("        s1 {\n", "        s1 {\n" + line + ("\n}" if line.strip() == "{" else "") + "\n", 1)
    parsed = parse_configuration(damaged)
    assert parsed.facts.ports["et-0/0/0:0"].mtu == 9216


DEFAULT_CLASSES = """interfaces {
    et-0/0/1 {
        mtu 9216;
    }
    et-0/0/2 {
        mtu 9216;
    }
}
class-of-service {
    classifiers {
        dscp builtin-classes {
            forwarding-class no-loss {
                loss-priority low code-points 011010;
            }
            forwarding-class network-control {
                loss-priority low code-points 110000;
            }
        }
        dscp unknown-class {
            forwarding-class rocev2 {
                loss-priority low code-points 011010;
            }
        }
    }
    interfaces {
        et-0/0/1 {
            classifiers {
                dscp builtin-classes;
            }
        }
        et-0/0/2 {
            classifiers {
                dscp unknown-class;
            }
        }
    }
}
"""


def test_the_default_forwarding_classes_of_the_switch_give_their_queues() -> None:
    """A classifier may name a default class of the QFX (no-loss, queue 4) without defining it: DSCP is trusted and
    26 lands in queue 4; a class neither defined nor default leaves the classification unknown (never 'untrusted')."""
    parsed = parse_configuration(DEFAULT_CLASSES)
    builtin, unknown = parsed.facts.ports["et-0/0/1"], parsed.facts.ports["et-0/0/2"]
    assert (builtin.dscp_trusted, builtin.dscp_to_tc) == (True, {26: 4, 48: 7})
    assert (unknown.dscp_trusted, unknown.dscp_to_tc) == (None, None)
    assert any("rocev2" in u.reason and u.scope == "et-0/0/2" for u in parsed.unread)


def test_show_interfaces_queue_gives_the_drops_of_each_queue() -> None:
    facts = parse_interfaces(read_output("junos-interfaces", "genieparser-ShowInterfacesQueue-golden_output.txt")).facts
    assert facts["ge-0/0/2"][1].queue_drops == {"0": 0, "1": 0, "2": 0, "3": 0, "4": 0}
    text = read_output("junos-interfaces", "genieparser-ShowInterfacesQueue-golden_output.txt").replace(
        "Tail-dropped packets :                     0", "Tail-dropped packets :                    17", 1)
    assert parse_interfaces(text).facts["ge-0/0/2"][1].queue_drops["0"] == 17


@pytest.mark.parametrize("name", ["genieparser-ShowInterfaces-golden_output_4.txt", "ntc-juniper_junos_show_interfaces_irb.txt"])
def test_an_output_of_a_logical_unit_alone_is_understood_and_has_no_port(name: str) -> None:
    parsed = parse_interfaces(read_output("junos-interfaces", name))
    assert parsed.facts == {}


# ---------------------------------------------------------------------------------------------------- no crash ever

CRASH_OUTPUTS = [
    (parse_running_config, "eos-running-config", "batfish-arista_interface_show_run_all.cfg"),
    (parse_interfaces_text, "eos-interfaces", "fakenos-ceos1.txt"),
    (parse_configuration, "junos-configuration", "jvd-aiml_multitenancy_backend-spine1_qfx5240-64od.conf"),
    (parse_interfaces, "junos-interfaces", "genieparser-ShowInterfacesExtensive-golden_output4.txt"),
    (parse_pfcwd_stats, "sonic-pfcwd-stats", "utilities-682-operational.txt"),
    (parse_queue_counters, "sonic-queue-counters", "mgmt-trimming-mlnx.txt"),
]


@pytest.mark.parametrize(("parse", "tool", "name"), CRASH_OUTPUTS, ids=[t for _, t, _ in CRASH_OUTPUTS])
def test_a_damaged_line_is_refused_or_unread_never_a_crash(parse, tool: str, name: str) -> None:  # type: ignore[no-untyped-def]
    lines = read_output(tool, name).split("\n")

    @given(data=st.data())
    @VARIANTS
    def check(data: st.DataObject) -> None:
        damaged = list(lines)
        for _ in range(data.draw(st.integers(1, 3))):
            at = data.draw(st.integers(0, len(damaged) - 1))
            cut = data.draw(st.integers(0, len(damaged[at])))
            damaged[at] = damaged[at][:cut] + data.draw(st.sampled_from(["", "{", "}", ";", "[", "]", ":", "/", "\t", " -"])) \
                + damaged[at][data.draw(st.integers(cut, len(damaged[at]))):]
        try:
            parse("\n".join(damaged))
        except Exception as exc:  # noqa: BLE001 - only a refusal is allowed
            assert type(exc).__name__ == "ParseError", exc

    check()
