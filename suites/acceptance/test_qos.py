"""RoCE QoS of each NIC (catalog QOS-*): what niccli reports against the node's bnxt_re.conf values."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.qos import (
    CNP_TC,
    ROCE_TC,
    ConfQos,
    app_mismatches,
    cc_mode_path,
    conf_qos,
    map_mismatches,
    pfc_text,
    prio_map_mismatches,
    read_cc_mode,
    tc_bandwidth,
    tsa_text,
)
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.bnxt_re_conf import parse_bnxt_re_conf
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from pytest_gpufabric.parsers.niccli import NicQos, parse_niccli_dscp2prio, parse_niccli_pri2cos, parse_niccli_qos
from pytest_gpufabric.targets import NicTarget

UNCONFIGURED_HINT = (
    "QoS is in the unconfigured all-zero state: firmware DCBX or LLDP is enabled in the NIC NVM (NVM-004..006), "
    "so bnxt_re did not configure QoS; disable dcbx_mode, lldp_nearest_bridge and lldp_nearest_non_tpmr_bridge "
    "with niccli nvm --setoption and reboot (S0 5.1 FAQ 5, 2.2.3.4)"
)
QOS_DMESG_ERRORS = ("Fail to setets", "Fail to initialize Flow control")


def _conf(nic: NicTarget, gpufabric: CheckContext) -> ConfQos:
    result = gpufabric.run(nic.node.name, "cat /etc/bnxt_re/bnxt_re.conf", cached=True)
    return conf_qos(gpufabric.parse(parse_bnxt_re_conf, result))


def _qos(nic: NicTarget, gpufabric: CheckContext) -> NicQos:
    command = sh("niccli", "--dev", nic.nic.pci, "qos", "--ets", "--show")
    return gpufabric.parse(parse_niccli_qos, gpufabric.run(nic.node.name, command, cached=True))


def _hint(qos: NicQos) -> str | None:
    return UNCONFIGURED_HINT if qos.unconfigured else None


@pytest.mark.check("QOS-001")
def test_ets_priority_map(nic: NicTarget, gpufabric: CheckContext) -> None:
    qos, conf = _qos(nic, gpufabric), _conf(nic, gpufabric)
    problems = prio_map_mismatches(qos, conf)
    detail = f"ROCE_PRI={conf.roce_pri} CNP_PRI={conf.cnp_pri}: " + ("; ".join(problems) or "as configured")
    gpufabric.expect("mismatched_priorities", len(problems), detail=detail, hint=_hint(qos))


@pytest.mark.check("QOS-002")
def test_ets_bandwidth(nic: NicTarget, gpufabric: CheckContext) -> None:
    qos = _qos(nic, gpufabric)
    roce = tc_bandwidth(qos, ROCE_TC)
    values = [("tc0_bandwidth", tc_bandwidth(qos, 0), None, f"TC Bandwidth {qos.tc_bandwidth}"),
              ("tc1_bandwidth", roce, None, f"TC Bandwidth {qos.tc_bandwidth}")]
    with gpufabric.part():  # what niccli shows is judged even where bnxt_re.conf cannot be read
        conf = _conf(nic, gpufabric)
        values.append(("tc1_differs_from_conf", roce != conf.roce_bw, None, f"TC1 {roce}% vs ROCE_BW={conf.roce_bw} in bnxt_re.conf"))
    gpufabric.expect_each(values, hint=_hint(qos))


@pytest.mark.check("QOS-003")
def test_transmission_selection(nic: NicTarget, gpufabric: CheckContext) -> None:
    qos = _qos(nic, gpufabric)
    gpufabric.expect("tsa_map", tsa_text(qos), hint=_hint(qos))


@pytest.mark.check("QOS-004")
def test_pfc_on_roce_priority(nic: NicTarget, gpufabric: CheckContext) -> None:
    qos = _qos(nic, gpufabric)
    measured = pfc_text(qos)
    values = [("pfc_enabled", measured, None, f"PFC enabled: {measured}")]
    with gpufabric.part():
        conf = _conf(nic, gpufabric)
        values.append(("pfc_differs_from_conf", measured != str(conf.roce_pri), None, f"ROCE_PRI={conf.roce_pri} in bnxt_re.conf"))
    gpufabric.expect_each(values, hint=_hint(qos))


@pytest.mark.check("QOS-005")
def test_app_tlvs(nic: NicTarget, gpufabric: CheckContext) -> None:
    qos, conf = _qos(nic, gpufabric), _conf(nic, gpufabric)
    problems = app_mismatches(qos, conf)
    gpufabric.expect("mismatched_app_entries", len(problems), detail="; ".join(problems), hint=_hint(qos))


@pytest.mark.check("QOS-006")
def test_qos_applied(nic: NicTarget, gpufabric: CheckContext) -> None:
    qos = _qos(nic, gpufabric)
    values = [("unconfigured", qos.unconfigured, None, f"PRIO_MAP {qos.prio_map}, TC Bandwidth {qos.tc_bandwidth}, PFC {pfc_text(qos)}")]
    errors: list[str] = []
    with gpufabric.part():  # the unconfigured state is judged even where the kernel log cannot be read
        log = gpufabric.parse(parse_dmesg, gpufabric.run(nic.node.name, "dmesg", cached=True))
        errors = [m.line.text for m in log.matching(QOS_DMESG_ERRORS) if nic.nic.name in m.line.text]
        values.append(("qos_errors_in_dmesg", len(errors), None, "; ".join(errors)))
    gpufabric.expect_each(values, hint=UNCONFIGURED_HINT if qos.unconfigured or errors else None)


@pytest.mark.check("QOS-007")
def test_priority_to_cos_map(nic: NicTarget, gpufabric: CheckContext) -> None:
    conf = _conf(nic, gpufabric)
    command = sh("niccli", "--dev", nic.nic.pci, "qos", "--listmap", "--pri2cos")
    pri2cos = gpufabric.parse(parse_niccli_pri2cos, gpufabric.run(nic.node.name, command))
    measured = {p: pri2cos.traffic_class(p) for p in (conf.roce_pri, conf.cnp_pri)}
    problems = map_mismatches(measured, {conf.roce_pri: ROCE_TC, conf.cnp_pri: CNP_TC}, "priority", complete=pri2cos.complete)
    gpufabric.expect("mismatched_priorities", len(problems), detail="; ".join(problems))


@pytest.mark.check("QOS-008")
def test_dscp_to_priority_map(nic: NicTarget, gpufabric: CheckContext) -> None:
    conf = _conf(nic, gpufabric)
    command = sh("niccli", "--dev", nic.nic.pci, "qos", "--dscp2prio")
    dscp2prio = gpufabric.parse(parse_niccli_dscp2prio, gpufabric.run(nic.node.name, command))
    mapping = dscp2prio.mapping
    measured = {d: mapping.get(d) for d in (conf.roce_dscp, conf.cnp_dscp)}
    problems = map_mismatches(measured, {conf.roce_dscp: conf.roce_pri, conf.cnp_dscp: conf.cnp_pri}, "DSCP",
                              complete=dscp2prio.complete)
    gpufabric.expect("mismatched_dscp", len(problems), detail="; ".join(problems) or f"dscp2prio {mapping}")


@pytest.mark.check("QOS-009")
def test_congestion_control_mode(nic: NicTarget, gpufabric: CheckContext) -> None:
    cc_mode = read_cc_mode(gpufabric, nic.node.name, nic.nic.name)
    gpufabric.expect("cc_mode", cc_mode, detail=cc_mode_path(nic.nic.name))
