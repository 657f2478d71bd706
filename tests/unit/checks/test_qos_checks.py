"""Pure evaluation of the QoS checks (QOS-*, DRV-009) on the S0 and S3 niccli samples."""

from __future__ import annotations


import pytest

from pytest_gpufabric.checks.qos import ConfQos, app_mismatches, conf_qos, map_mismatches, pfc_text, prio_map_mismatches, tc_bandwidth, tsa_text
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.bnxt_re_conf import parse_bnxt_re_conf
from pytest_gpufabric.parsers.niccli import parse_niccli_qos
from tests.outputs import read_output

DEFAULTS = ConfQos(roce_pri=3, roce_dscp=26, cnp_pri=7, cnp_dscp=48, roce_bw=50)


def qos(name: str):  # type: ignore[no-untyped-def]
    return parse_niccli_qos(read_output("niccli-qos", name)).facts


def test_conf_qos_reads_the_s0_defaults() -> None:
    conf = parse_bnxt_re_conf(read_output("bnxt-re-conf", "s0_defaults.txt")).facts
    assert conf_qos(conf) == DEFAULTS


def test_conf_qos_missing_key_is_an_error() -> None:
    with pytest.raises(MeasurementMissing, match="ROCE_DSCP"):
        conf_qos(parse_bnxt_re_conf("ROCE_PRI=3\nCNP_PRI=7\n").facts)


def test_configured_s0_output_matches_the_defaults() -> None:
    configured = qos("s0_ets_show_configured.txt")
    assert prio_map_mismatches(configured, DEFAULTS) == []
    assert (tc_bandwidth(configured, 0), tc_bandwidth(configured, 1), tc_bandwidth(configured, 9)) == (50, 50, None)
    assert tsa_text(configured) == "0:ets 1:ets 2:strict"
    assert pfc_text(configured) == "3"
    assert app_mismatches(configured, DEFAULTS) == []


def test_s3_getqos_matches_the_defaults() -> None:
    assert prio_map_mismatches(qos("s3_getqos.txt"), DEFAULTS) == [] and app_mismatches(qos("s3_getqos.txt"), DEFAULTS) == []


def test_unconfigured_faq5_output_fails_every_way() -> None:
    zero = qos("s0_ets_show_unconfigured.txt")
    assert prio_map_mismatches(zero, DEFAULTS) == ["priority 3 -> TC0 (want TC1)", "priority 7 -> TC0 (want TC2)"]
    assert tsa_text(zero) == "0:strict 1:strict 2:strict"
    assert pfc_text(zero) == "none"
    assert app_mismatches(zero, DEFAULTS) == ["no IEEE 8021QAZ APP TLV"]


def test_app_mismatch_against_another_conf() -> None:
    other = ConfQos(roce_pri=4, roce_dscp=24, cnp_pri=7, cnp_dscp=48, roce_bw=50)
    assert app_mismatches(qos("s0_ets_show_configured.txt"), other) == [
        "dscp 24 -> priority 4 sel 5: absent", "udp 4791 -> priority 4 sel 3: priority 3 sel 3"]


def test_map_mismatches() -> None:
    assert map_mismatches({26: 3, 48: None}, {26: 3, 48: 7}, "DSCP") == ["DSCP 48 -> None (want 7)"]
