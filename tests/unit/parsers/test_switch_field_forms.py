"""Switch configurations as the field prints them: the DSCP class a `drop-precedence` map really gives, ECN
thresholds in every EOS unit, `no` forms and defaults, a service-profile defined elsewhere, Junos congestion
notification profiles with only an output side; and the parsing rule's variants on the text parsers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.expectations import load_profile
from pytest_gpufabric.parsers.eos_config import parse_running_config
from pytest_gpufabric.parsers.eos_show import parse_interfaces_text, parse_pfc_watchdog
from pytest_gpufabric.parsers.junos_config import parse_configuration
from pytest_gpufabric.parsers.junos_show import parse_interfaces
from tests.outputs import read_output
from tests.variants import END, assert_same_facts, same_facts_variants

REPO = Path(__file__).resolve().parents[3]
S0 = read_output("eos-running-config", "running-config-s0-2.5.1.txt")
AVD_DSCP_MAP = "qos map dscp 18 20 22 26 28 30 34 36 38 to traffic-class 4 drop-precedence 2\n"  # avd-qos.cfg, line 237


def test_a_drop_precedence_map_gives_the_class_the_switch_really_uses() -> None:
    config = parse_running_config(AVD_DSCP_MAP + S0)
    port = config.facts.ports["Ethernet1/1"]
    assert port.dscp_to_tc is not None and port.dscp_to_tc[26] == 4 and port.dscp_to_tc[24] == 3  # 24: the default map
    assert config.unread == ()
    profile = load_profile(REPO / "thresholds", "mi300x-thor2")
    context = CheckContext(load_catalog().get("SW-003"), "leaf1/Ethernet1/1", profile, lambda *_: None)  # type: ignore[arg-type,return-value]
    judged = context.judge("roce_dscp_class", port.dscp_to_tc[26])
    assert not judged.passed and judged.measured == 4  # RoCE lands in class 4, not the no-drop class 3


def test_the_avd_drop_precedence_map_of_a_real_configuration() -> None:
    parsed = parse_running_config(read_output("eos-running-config", "avd-qos.cfg"))
    lines = [u.line for u in parsed.unread]
    assert 237 not in lines  # the drop-precedence map line is understood
    ethernet1 = parsed.facts.ports["Ethernet1"]
    assert ethernet1.dscp_to_tc is None  # its service-policy may classify by class-maps: not judged on the map alone


@pytest.mark.parametrize(("line", "expected"), [
    ("random-detect ecn minimum-threshold 320 segments maximum-threshold 640 segments weight 10", (320, 640, 100, "segments")),
    ("random-detect ecn minimum-threshold 3 milliseconds maximum-threshold 9 milliseconds max-mark-probability 90", (3, 9, 90, "milliseconds")),
    ("random-detect ecn minimum-threshold 500 microseconds maximum-threshold 2 milliseconds max-mark-probability 90", (0.5, 2, 90, "milliseconds")),
    ("random-detect ecn minimum-threshold 1 mbytes maximum-threshold 2048 kbytes", (1048576, 2097152, 100, "bytes")),
])
def test_ecn_thresholds_in_every_eos_unit(line: str, expected: tuple[float, float, int, str]) -> None:
    text = S0.replace("random-detect ecn minimum-threshold 1000 kbytes maximum-threshold 3000 kbytes max-mark-probability 20 weight 0", line)
    ecn = parse_running_config(text).facts.ports["Ethernet1/1"].ecn_on(3)
    assert ecn is not None and (ecn.min_threshold, ecn.max_threshold, ecn.max_mark_probability, ecn.unit) == expected


def test_thresholds_in_two_units_are_not_compared() -> None:
    text = S0.replace("maximum-threshold 3000 kbytes", "maximum-threshold 30 segments")
    parsed = parse_running_config(text)
    assert parsed.facts.ports["Ethernet1/1"].ecn_on(3) is None
    assert any("no common unit" in u.reason and u.scope == "QOS_ROCE_DCQCN" for u in parsed.unread)


def test_no_forms_and_defaults() -> None:
    text = (S0.replace("   flowcontrol send off\n", "   no flowcontrol send\n", 1)
              .replace("   error-correction encoding reed-solomon\n", "   no error-correction encoding\n", 1)
              .replace("   flowcontrol receive off\n", "", 1))
    port = parse_running_config(text).facts.ports["Ethernet1/1"]
    assert (port.link_pause, port.fec) == ("off", "disabled")  # no/absent: EOS's default, off in both directions
    on = parse_running_config(S0.replace("   flowcontrol receive off\n", "   flowcontrol receive on\n", 1)).facts.ports["Ethernet1/1"]
    assert on.link_pause == "send off, receive on"


def test_two_fec_lines_are_both_kept() -> None:
    port = parse_running_config(read_output("eos-running-config", "avd-ethernet-interfaces.cfg")).facts.ports["Ethernet23"]
    assert port.fec == "fire-code, reed-solomon"  # the port may come up in either: never judged as RS alone


def test_a_service_profile_defined_elsewhere_costs_that_ports_qos_only() -> None:
    parsed = parse_running_config(read_output("eos-running-config", "avd-dc1-pod1-leaf1a.cfg"))
    port = parsed.facts.ports["Ethernet1"]
    assert (port.pfc_enabled, port.no_drop_priorities, port.dscp_to_tc, port.ecn_queues) == (None, None, None, None)
    assert (port.routed, port.link_pause) == (True, "off")  # its link facts are read
    assert any(u.scope == "Ethernet1" and "QOS-PROFILE is not defined" in u.reason for u in parsed.unread)


def test_junos_output_only_profile_means_no_ingress_pfc() -> None:
    cos = read_output("junos-configuration", "s0-2.5.3-class-of-service.txt").replace(
        "            input {\n                dscp {\n                    code-point 011010 {\n                        pfc;\n"
        "                    }\n                }\n            }\n", "")
    config = parse_configuration(read_output("junos-configuration", "s0-2.4.2.4-interfaces.txt") + cos).facts
    port = config.ports["et-0/0/1:0"]
    assert (port.pfc_enabled, port.no_drop_priorities) == (False, frozenset())
    assert port.priority_queues == {3: 4}  # it still obeys received pause frames on priority 3 (queue 4)


def test_junos_dscp_pfc_takes_the_priority_of_the_lossless_class() -> None:
    config = parse_configuration(read_output("junos-configuration", "s0-2.4.2.4-interfaces.txt")
                                 + read_output("junos-configuration", "s0-2.5.3-class-of-service.txt")).facts
    port = config.ports["et-0/0/2:1"]
    assert port.no_drop_priorities == frozenset({3}) and port.dscp_to_tc == {26: 4, 48: 3}
    assert (port.queue_of(3), port.priority_of(4), port.priority_of(3)) == (4, 3, None)
    assert port.ecn_on(4) is not None and port.ecn_on(3) is None


VARIANT_SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXT_OUTPUTS = [
    (parse_running_config, "eos-running-config", "running-config-s0-2.5.1.txt"),
    (parse_running_config, "eos-running-config", "avd-qos.cfg"),
    (parse_interfaces_text, "eos-interfaces", "ntc-arista_eos_show_interfaces.raw.txt"),
    (parse_pfc_watchdog, "eos-pfc-watchdog", "s3-show-priority-flow-control-interfaces.txt"),
    (parse_configuration, "junos-configuration", "jvd-aiml-backend-leaf1_qfx5240-64od.conf"),
    (parse_interfaces, "junos-interfaces", "genieparser-extensive-et-100g.txt"),
]


@pytest.mark.parametrize(("parse", "tool", "name"), TEXT_OUTPUTS, ids=[f"{t}/{n}" for _, t, n in TEXT_OUTPUTS])
def test_variants_give_the_same_facts(parse, tool: str, name: str) -> None:  # type: ignore[no-untyped-def]
    text = read_output(tool, name)

    @given(variant=same_facts_variants(text, insert_at=(END,)))
    @VARIANT_SETTINGS
    def check(variant: str) -> None:
        assert_same_facts(parse, text, variant)

    check()


ETS = """interfaces {
    xe-0/0/1 {
        mtu 9216;
    }
}
class-of-service {
    forwarding-classes {
        class no-loss queue-num 3 no-loss pfc-priority 3;
    }
    drop-profiles {
        dp1 {
            interpolate {
                fill-level [ 30 80 ];
                drop-probability [ 0 100 ];
            }
        }
    }
    traffic-control-profiles {
        tcp1 {
            scheduler-map sm1;
        }
    }
    interfaces {
        xe-0/0/1 {
            forwarding-class-set {
                fcset {
                    output-traffic-control-profile tcp1;
                }
            }
        }
    }
    scheduler-maps {
        sm1 {
            forwarding-class no-loss scheduler s1;
        }
    }
    schedulers {
        s1 {
            explicit-congestion-notification;
            drop-profile-map loss-priority any protocol any drop-profile dp1;
        }
    }
}
"""


def test_junos_ecn_through_ets_traffic_control_profiles() -> None:
    """QFX hierarchical scheduling (ETS): the port's schedulers come from its forwarding class set's traffic control
    profile, not a scheduler-map of its own (Junos CoS user guide, "Example: Configuring Enhanced Transmission
    Selection"): ECN on the no-loss queue is read there, never reported off."""
    port = parse_configuration(ETS).facts.ports["xe-0/0/1"]
    ecn = port.ecn_on(3)
    assert ecn is not None and (ecn.min_threshold, ecn.max_threshold, ecn.max_mark_probability, ecn.unit) == (30, 80, 100, "percent")
