"""Leaf switches (catalog SW-*) and the NIC <-> switch consistency of each cabled port (NSW-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.qos import ConfQos, cc_mode_path, conf_qos, read_cc_mode
from pytest_gpufabric.checks.switches import (
    counter_deltas,
    counter_evidence,
    ecn_text,
    nic_side,
    no_drop_text,
    port_config,
    port_mtu,
    port_status,
    qos_intent,
    queue_marking,
    watchdog,
)
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.bnxt_re_conf import parse_bnxt_re_conf
from pytest_gpufabric.parsers.ip import parse_ip_link
from pytest_gpufabric.switches.commands import reads_for
from pytest_gpufabric.switches.facts import PortConfig
from pytest_gpufabric.switches.snapshots import PLUGIN_NAME
from pytest_gpufabric.targets import SwitchPortTarget

CC_MODE_MARKING = {1: "probabilistic", 0: "deterministic"}  # bnxt_re cc_mode: 1 DCQCN-P, 0 DCQCN-D (S3)


def _source(switch_port: SwitchPortTarget) -> str:
    """The switch side of a comparison: the port and the configuration command read."""
    return f"{switch_port.id} (`{reads_for(switch_port.switch.name, switch_port.switch.os).config[0]}`)"


def _nic_conf(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> ConfQos:
    result = gpufabric.run(switch_port.node.name, "cat /etc/bnxt_re/bnxt_re.conf", cached=True)
    return conf_qos(gpufabric.parse(parse_bnxt_re_conf, result))


def _roce_no_drop(port: PortConfig, priority: int) -> bool | None:
    return None if port.no_drop_priorities is None else priority in port.no_drop_priorities


def _dscp_class(port: PortConfig, dscp: int) -> int | str | None:
    """The traffic class ``dscp`` lands in on ``port``; ``untrusted`` where the port does not trust DSCP; None
    where its classification is not known."""
    if port.dscp_to_tc is None:
        return None
    return port.dscp_to_tc.get(dscp, "untrusted") if port.dscp_to_tc else "untrusted"


@pytest.mark.check("SW-001")
def test_pfc_no_drop_on_roce_priority(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    port = port_config(gpufabric, switch_port.switch, switch_port.port)
    roce_pri = qos_intent(gpufabric.profile).roce_pri
    no_drop = no_drop_text(port)
    gpufabric.expect_each([
        ("pfc_enabled", port.pfc_enabled, None, f"no-drop priorities: {no_drop}"),
        ("roce_priority_no_drop", _roce_no_drop(port, roce_pri), None,
         f"RoCE priority {roce_pri} (profile DRV-009.roce_pri); no-drop priorities: {no_drop}"),
    ])


@pytest.mark.check("SW-002")
def test_ecn_on_roce_queue(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    port = port_config(gpufabric, switch_port.switch, switch_port.port)
    priority = qos_intent(gpufabric.profile).roce_pri
    queue = port.queue_of(priority)
    ecn = port.ecn_on(queue) if queue is not None else None
    marking = queue_marking(port, queue) if queue is not None else "off"
    detail = f"RoCE priority {priority}: {ecn_text(ecn, queue)}"
    gpufabric.expect_each([("roce_queue_ecn", None if marking is None else ecn is not None, None, detail),
                           ("marking", marking, None, detail)])


@pytest.mark.check("SW-003")
def test_dscp_classification(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    port = port_config(gpufabric, switch_port.switch, switch_port.port)
    intent = qos_intent(gpufabric.profile)
    gpufabric.expect_each([
        ("dscp_trusted", port.dscp_trusted, None, ""),
        ("roce_dscp_class", _dscp_class(port, intent.roce_dscp), None, f"DSCP {intent.roce_dscp} (profile DRV-009.roce_dscp)"),
        ("cnp_dscp_class", _dscp_class(port, intent.cnp_dscp), None, f"DSCP {intent.cnp_dscp} (profile DRV-009.cnp_dscp)"),
    ])


@pytest.mark.check("SW-004")
def test_port_mtu(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    mtu, command = port_mtu(gpufabric, switch_port.switch, switch_port.port)
    gpufabric.expect("mtu", mtu, detail=f"`{command}`")


@pytest.mark.check("SW-005")
def test_pfc_watchdog(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    found = watchdog(gpufabric, switch_port.switch, switch_port.port)
    if found is None:
        gpufabric.expect("watchdog_enabled", False, detail="no PFC watchdog configured")
        return
    detail = f"timeout {found.timeout_ms} ms, recovery {found.recovery_ms} ms, polling {found.polling_ms} ms"
    gpufabric.expect_each([("watchdog_enabled", found.enabled, None, detail),
                           ("action", found.action or "not shown", None, detail)])


@pytest.mark.check("SW-006")
def test_host_port_link(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    status = port_status(gpufabric, switch_port.switch, switch_port.port)
    gpufabric.judge("oper_up", status.oper_up)  # a port that is down may show no speed: its state alone fails it
    nic_speed = switch_port.nic.speed_gbps
    with gpufabric.part():
        speed = gpufabric.require(status.speed_gbps, f"speed of {switch_port.id}")
        gpufabric.judge("speed_differs_from_nic", speed != nic_speed,
                        detail=f"port {speed:g} Gb/s, {switch_port.node.name}/{switch_port.nic.name} {nic_speed} Gb/s (inventory)")
    with gpufabric.part():
        fec = status.fec or port_config(gpufabric, switch_port.switch, switch_port.port).fec
        gpufabric.judge("fec", gpufabric.require(fec, f"FEC of {switch_port.id}"))
    if switch_port.switch.os != "sonic":  # SONiC has no IEEE 802.3x pause setting (no field in its PORT table)
        with gpufabric.part():
            pause = status.link_pause or port_config(gpufabric, switch_port.switch, switch_port.port).link_pause
            gpufabric.judge("link_pause", gpufabric.require(pause, f"flowcontrol of {switch_port.id}"))
    gpufabric.settle()


@pytest.mark.check("SW-007")
def test_no_pause_storm_or_drops(switch_port: SwitchPortTarget, gpufabric: CheckContext, request: pytest.FixtureRequest) -> None:
    snapshots = request.config.pluginmanager.get_plugin(PLUGIN_NAME)
    before, after, outputs = snapshots.deltas(switch_port.switch.name, switch_port.port)
    counter_evidence(gpufabric, switch_port.switch, outputs)  # the counters before and after the traffic tests
    gpufabric.focus((switch_port.port,))
    gpufabric.expect_each(counter_deltas(before, after, switch_port.id))


@pytest.mark.check("NSW-001")
def test_nic_priority_no_drop_on_its_port(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    conf = _nic_conf(switch_port, gpufabric)
    port = port_config(gpufabric, switch_port.switch, switch_port.port)
    no_drop = no_drop_text(port)
    gpufabric.expect("nic_priority_no_drop", _roce_no_drop(port, conf.roce_pri), detail=(
        f"NIC {nic_side(switch_port.node.name, switch_port.nic.name, 'bnxt_re.conf')}: ROCE_PRI={conf.roce_pri}; "
        f"switch {_source(switch_port)}: no-drop priorities {no_drop}"))


@pytest.mark.check("NSW-002")
def test_nic_dscp_classes_on_its_port(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    conf = _nic_conf(switch_port, gpufabric)
    port = port_config(gpufabric, switch_port.switch, switch_port.port)
    roce_tc, cnp_tc = _dscp_class(port, conf.roce_dscp), _dscp_class(port, conf.cnp_dscp)
    roce_paused_by = port.priority_of(roce_tc) if isinstance(roce_tc, int) else None
    nic = nic_side(switch_port.node.name, switch_port.nic.name, "bnxt_re.conf")
    switch = _source(switch_port)
    gpufabric.expect_each([
        ("roce_dscp_in_nic_priority_class", None if roce_tc is None else roce_paused_by == conf.roce_pri, None,
         f"NIC {nic}: ROCE_DSCP={conf.roce_dscp} on priority {conf.roce_pri}; switch {switch}: DSCP {conf.roce_dscp} -> "
         f"traffic class {roce_tc} (paused by PFC priority {roce_paused_by})"),
        ("cnp_dscp_in_own_class", None if cnp_tc is None else isinstance(cnp_tc, int) and cnp_tc != roce_tc, None,
         f"NIC {nic}: CNP_DSCP={conf.cnp_dscp} on priority {conf.cnp_pri}; switch {switch}: DSCP {conf.cnp_dscp} -> "
         f"traffic class {cnp_tc} (RoCE class {roce_tc})"),
    ])


@pytest.mark.check("NSW-003")
def test_port_mtu_fits_nic_mtu(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    netdev = switch_port.nic.netdev
    links = gpufabric.parse(parse_ip_link, gpufabric.run(switch_port.node.name, sh("ip", "-o", "link", "show", "dev", netdev)))
    nic_mtu = gpufabric.require(links.get(netdev), f"interface {netdev} of {switch_port.node.name}").mtu
    mtu, command = port_mtu(gpufabric, switch_port.switch, switch_port.port)
    gpufabric.expect("port_mtu_above_nic_mtu", mtu - nic_mtu, detail=(
        f"switch {switch_port.id} (`{command}`): MTU {mtu}; "
        f"NIC {nic_side(switch_port.node.name, netdev, 'ip link')}: MTU {nic_mtu}"))


@pytest.mark.check("NSW-004")
def test_ecn_matches_nic_congestion_control(switch_port: SwitchPortTarget, gpufabric: CheckContext) -> None:
    cc_mode = read_cc_mode(gpufabric, switch_port.node.name, switch_port.nic.name)
    path = cc_mode_path(switch_port.nic.name)
    wanted = CC_MODE_MARKING.get(cc_mode, f"unknown cc_mode {cc_mode}")
    port = port_config(gpufabric, switch_port.switch, switch_port.port)
    priority = _nic_conf(switch_port, gpufabric).roce_pri
    queue = port.queue_of(priority)
    marking = queue_marking(port, queue) if queue is not None else "off"
    gpufabric.expect("switch_marking_matches_nic", None if marking is None else marking == wanted, detail=(
        f"NIC {nic_side(switch_port.node.name, switch_port.nic.name, path)}: cc_mode {cc_mode} expects {wanted} marking; "
        f"switch {_source(switch_port)}: priority {priority} on queue {queue}, marking {marking}"))
