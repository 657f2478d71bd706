"""SONiC outputs of a demo leaf: config_db built from SONiC's own test config_db (PORT, PORT_QOS_MAP, QUEUE and
WRED_PROFILE entries as templates) with S0 2.5.2's DSCP map, MTU, FEC and PFC watchdog; show tables in the
layout of SONiC's test outputs."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_gpufabric.switches.snapshots import snapshot_item
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.switches import LINK_DOWN, MTU_9000, PFC_STORM, UNTRUSTED_DSCP, DemoSwitch
from tools.demo_cluster.switches.tables import render

OUTPUTS = Path(__file__).resolve().parents[3] / "fixtures" / "outputs"
MAP = "ROCE"
# S0 2.5.2 qos map dscp-tc ROCE: 24,26 -> 3, 4 -> 4, 48 -> 6, every other DSCP -> 0
DSCP_TO_TC = {str(d): "3" if d in (24, 26) else "4" if d == 4 else "6" if d == 48 else "0" for d in range(64)}
PFC_WD = {"action": "drop", "detection_time": "200", "restoration_time": "400"}  # S0 2.5.2 watchdog lines
Ports = list[tuple[str, tuple[str, int]]]


def config_db(ports: Ports) -> str:
    sample = json.loads((OUTPUTS / "sonic-config-db" / "sonic-utilities-config_db-s6100.json").read_text(encoding="utf-8"))
    port_template, qos_template = sample["PORT"]["Ethernet0"], sample["PORT_QOS_MAP"]["Ethernet0"]
    queue_lossless, queue_lossy = sample["QUEUE"]["Ethernet0|3"], sample["QUEUE"]["Ethernet0|0"]
    db: dict[str, dict[str, dict[str, str]]] = {
        "DEVICE_METADATA": sample["DEVICE_METADATA"], "DSCP_TO_TC_MAP": {MAP: DSCP_TO_TC},
        "PORT": {}, "PORT_QOS_MAP": {}, "QUEUE": {}, "WRED_PROFILE": sample["WRED_PROFILE"], "SCHEDULER": sample["SCHEDULER"],
        "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
    }
    for index, (port, key) in enumerate(ports):
        lane = int(port[len("Ethernet"):])
        db["PORT"][port] = {**port_template, "alias": f"etp{index + 1}", "index": str(index + 1), "fec": "rs",
                            "lanes": ",".join(str(lane + i) for i in range(8)), "speed": "400000",
                            "mtu": "9000" if key in MTU_9000 else "9100"}
        qos = {k: v for k, v in qos_template.items() if not (k == "dscp_to_tc_map" and key in UNTRUSTED_DSCP)}
        db["PORT_QOS_MAP"][port] = {**qos, **({"dscp_to_tc_map": MAP} if "dscp_to_tc_map" in qos else {})}
        for queue in range(7):
            db["QUEUE"][f"{port}|{queue}"] = queue_lossless if queue in (3, 4) else queue_lossy
        db["PFC_WD"][port] = dict(PFC_WD)
    return json.dumps(db, indent=4, sort_keys=True) + "\n"


def interfaces_status(ports: Ports) -> str:
    columns = ["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym PFC"]
    rows = []
    for index, (port, key) in enumerate(ports):
        lane = int(port[len("Ethernet"):])
        rows.append([port, ",".join(str(lane + i) for i in range(8)), "400G", "9000" if key in MTU_9000 else "9100", "rs",
                     f"etp{index + 1}", "routed", "down" if key in LINK_DOWN else "up", "up", "QSFP-DD Double Density 8X Pluggable Transceiver", "off"])
    return render(columns, rows)


def interfaces_counters(ports: Ports) -> str:
    columns = ["IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR",
               "TX_OK", "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"]
    rows = [[port, "D" if key in LINK_DOWN else "U", "8", "0.00 B/s", "0.00%", "0", "0", "0", "10", "0.00 B/s", "0.00%", "0", "0", "0"]
            for port, key in ports]
    return render(columns, rows)


def pfc_counters(ports: Ports, frames: int) -> str:
    tables = []
    for direction in ("Rx", "Tx"):
        rows = [[port, *("0" if p != 3 else f"{frames:,}" for p in range(8))] for port, _ in ports]
        tables.append(render([f"Port {direction}", *(f"PFC{p}" for p in range(8))], rows))
    return "\n".join(tables)


def queue_counters(ports: Ports) -> str:
    """`show queue counters` in the layout of SONiC's test output (`For namespace :`, UC queues 0-7)."""
    columns = ["Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"]
    rows = [[port, f"UC{q}", "0", "0", "0", "0"] for port, _ in ports for q in range(8)]
    return "For namespace :\n" + render(columns, rows)


def pfcwd_stats(ports: Ports, storms: bool) -> str:
    columns = ["QUEUE", "STATUS", "STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP", "TX LAST OK/DROP", "RX LAST OK/DROP"]
    rows = []
    for port, key in ports:
        for queue in (3, 4):
            stormed = storms and key in PFC_STORM and queue == 3
            rows.append([f"{port}:{queue}", "stormed" if stormed else "operational", "1/0" if stormed else "0/0",
                         "100/300" if stormed else "0/0", "100/300" if stormed else "0/0", "0/200" if stormed else "0/0",
                         "0/200" if stormed else "0/0"])
    return render(columns, rows)


def build(switch: DemoSwitch, ports: Ports) -> dict[str | None, Outputs]:
    """Outputs by recording item (None: any item); SW-007's snapshots have their own before/after episodes."""
    return {
        None: {"sonic-cfggen -d --print-data": (config_db(ports), 0), "show interfaces status": (interfaces_status(ports), 0)},
        snapshot_item("before"): {"show interfaces counters": (interfaces_counters(ports), 0),
                                  "show pfc counters": (pfc_counters(ports, 0), 0),
                                  "show queue counters": (queue_counters(ports), 0),
                                  "show pfcwd stats": (pfcwd_stats(ports, False), 0)},
        snapshot_item("after"): {"show interfaces counters": (interfaces_counters(ports), 0),
                                 "show pfc counters": (pfc_counters(ports, 1480), 0),
                                 "show queue counters": (queue_counters(ports), 0),
                                 "show pfcwd stats": (pfcwd_stats(ports, True), 0)},
    }
