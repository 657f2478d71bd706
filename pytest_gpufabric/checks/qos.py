"""NIC QoS (QOS-*, DRV-009): what the NIC reports against the node's bnxt_re.conf values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.bnxt_re_conf import BnxtReConf
from pytest_gpufabric.parsers.niccli import NicQos
from pytest_gpufabric.parsers.sysctl import parse_proc_sys_int

T = TypeVar("T")
CONF_KEYS = ("ENABLE_FC", "FC_MODE", "ROCE_PRI", "ROCE_DSCP", "CNP_PRI", "CNP_DSCP", "ROCE_BW")
ROCE_TC, CNP_TC, DEFAULT_TC = 1, 2, 0  # S0 2.5: RoCE in TC1, CNP in TC2, everything else TC0
ROCE_UDP_PORT = 4791  # RoCE v2 UDP destination port (IANA), S0 2.5 APP TLV
SEL_DSCP, SEL_UDP = 5, 3  # IEEE 802.1Qaz APP selector values, as printed in S0 2.5


@dataclass(frozen=True)
class ConfQos:
    """The RoCE QoS intent of a node, read from /etc/bnxt_re/bnxt_re.conf."""

    roce_pri: int
    roce_dscp: int
    cnp_pri: int
    cnp_dscp: int
    roce_bw: int

    @property
    def non_roce_bw(self) -> int:
        return 100 - self.roce_bw


def conf_qos(conf: BnxtReConf) -> ConfQos:
    """The conf's QoS values; a missing or non-numeric key is a measurement error, never a default."""
    values = {}
    for key in ("ROCE_PRI", "ROCE_DSCP", "CNP_PRI", "CNP_DSCP", "ROCE_BW"):
        value = conf.get_int(key)
        if value is None:
            raise MeasurementMissing(f"bnxt_re.conf has no numeric {key}")
        values[key.lower()] = value
    return ConfQos(**values)


def prio_map_mismatches(qos: NicQos, want: ConfQos) -> list[str]:
    """Priorities not in their traffic class: RoCE -> TC1, CNP -> TC2, all others -> TC0."""
    prio_map = _read(qos.prio_map, "PRIO_MAP")
    problems = []
    for priority in range(8):
        expected = ROCE_TC if priority == want.roce_pri else CNP_TC if priority == want.cnp_pri else DEFAULT_TC
        measured = prio_map.get(priority)
        if measured != expected:
            problems.append(f"priority {priority} -> TC{measured} (want TC{expected})")
    return problems


def tc_bandwidth(qos: NicQos, tc: int) -> int | None:
    """The bandwidth share of ``tc``; None when the line was not read or does not reach that class."""
    return qos.tc_bandwidth[tc] if qos.tc_bandwidth is not None and tc < len(qos.tc_bandwidth) else None


def tsa_text(qos: NicQos, classes: int = 3) -> str:
    """``0:ets 1:ets 2:strict`` for the first ``classes`` traffic classes."""
    tsa_map = _read(qos.tsa_map, "TSA_MAP")
    return " ".join(f"{tc}:{tsa_map.get(tc, '?')}" for tc in range(classes))


def pfc_text(qos: NicQos) -> str:
    """PFC-enabled priorities as ``3`` / ``3,4`` / ``none``; a missing PFC TLV is an error."""
    if qos.pfc_enabled is None:
        raise MeasurementMissing("niccli output has no IEEE 8021QAZ PFC TLV (or its 'PFC enabled' line was not understood)")
    return ",".join(str(p) for p in sorted(qos.pfc_enabled)) or "none"


def app_mismatches(qos: NicQos, want: ConfQos) -> list[str]:
    """APP TLV entries missing or mapped to another priority: RoCE DSCP, CNP DSCP, RoCE UDP port."""
    if qos.app is None:
        return ["no IEEE 8021QAZ APP TLV"]
    wanted = (("dscp", want.roce_dscp, want.roce_pri, SEL_DSCP), ("dscp", want.cnp_dscp, want.cnp_pri, SEL_DSCP),
              ("udp", ROCE_UDP_PORT, want.roce_pri, SEL_UDP))
    problems = []
    for protocol, value, priority, selector in wanted:
        entries = [e for e in qos.app if e.protocol == protocol and e.value == value]
        if not any(e.priority == priority and e.selector == selector for e in entries):
            seen = ", ".join(f"priority {e.priority} sel {e.selector}" for e in entries) or "absent"
            problems.append(f"{protocol} {value} -> priority {priority} sel {selector}: {seen}")
    if problems and qos.app_incomplete:
        raise MeasurementMissing("niccli APP TLV: an entry was not understood, so what it maps is not known ("
                                 + "; ".join(problems) + ")")
    return problems


def map_mismatches(measured: dict[int, int | None], wanted: dict[int, int], what: str, *, complete: bool = True) -> list[str]:
    """``wanted`` key -> value pairs that ``measured`` does not have (e.g. DSCP -> priority). When the map was not
    read whole (``complete`` False), a key it lacks is not known to be unmapped: MeasurementMissing."""
    unknown = [k for k in sorted(wanted) if measured.get(k) is None and not complete]
    if unknown:
        raise MeasurementMissing(f"{what} {', '.join(map(str, unknown))}: not in the map read, and a line of it was not understood")
    return [f"{what} {k} -> {measured.get(k)} (want {v})" for k, v in sorted(wanted.items()) if measured.get(k) != v]


def _read(value: T | None, field: str) -> T:
    """A field of the niccli QoS output; missing when its line was absent or not understood."""
    if value is None:
        raise MeasurementMissing(f"niccli QoS output: {field} was not read (absent, or its line not understood)")
    return value


def cc_mode_path(rdma_device: str) -> str:
    """The bnxt_re configfs entry of the NIC's congestion-control mode (S3; 1 = DCQCN-P, 0 = DCQCN-D)."""
    return f"/sys/kernel/config/bnxt_re/{rdma_device}/ports/1/cc/cc_mode"


def read_cc_mode(gpufabric: CheckContext, node: str, rdma_device: str) -> int:
    """The NIC's cc_mode; an absent configfs entry is a missing measurement."""
    path = cc_mode_path(rdma_device)
    result = gpufabric.run(node, sh("cat", path))
    if result.exit_code != 0:
        gpufabric.require(None, f"{path} on {node} (configfs entry absent: create it as S3 documents, then rerun)")
    return gpufabric.parse(parse_proc_sys_int, result)
