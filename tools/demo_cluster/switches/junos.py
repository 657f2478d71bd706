"""Junos outputs of a demo leaf (a QFX5240): `show configuration` from S0 2.4.2.4's host ports (breakout
channels, MTU 9216) and S0 2.5.3's class-of-service, with the `pfc-watchdog` of Juniper's validated AI design
(JVD leaf1_qfx5240-64od) and RS-FEC; `show interfaces extensive` from a real Junos capture (genieparser's
et-0/0/0) as the per-port template, at 400 Gb/s with flow control off."""

from __future__ import annotations

from pathlib import Path

from pytest_gpufabric.switches.snapshots import snapshot_item
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.switches import (
    JUNOS_LINK_DOWN,
    JUNOS_MTU_1514,
    JUNOS_CNP_IN_ROCE_CLASS,
    JUNOS_NO_ECN,
    JUNOS_OUTPUT_ONLY_PFC,
    JUNOS_QUEUE_DROPS,
    DemoSwitch,
)

OUTPUTS = Path(__file__).resolve().parents[3] / "fixtures" / "outputs"
Ports = list[tuple[str, tuple[str, int]]]
OUTPUT_ONLY_CNP = """    congestion-notification-profile {
        cnp-output-only {
            output {
                ieee-802.1 {
                    code-point 011 {
                        flow-control-queue 4;
                    }
                }
            }
        }
"""
CNP_IN_ROCE_CLASS = """    classifiers {
        dscp dscp-cnp-lossless {
            forwarding-class NO-LOSS {
                loss-priority low code-points [ 011010 110000 ];
            }
        }
"""
NO_ECN = """    scheduler-maps {
        sm-no-ecn {
            forwarding-class CNP scheduler s2-cnp;
            forwarding-class NO-LOSS scheduler s1-no-ecn;
        }
"""


def _read(name: str) -> str:
    return (OUTPUTS / "junos-configuration" / name).read_text(encoding="utf-8")


def _interfaces(ports: Ports) -> str:
    """S0 2.4.2.4's first breakout port and channel as the template of every host port."""
    lines = _read("s0-2.4.2.4-interfaces.txt").splitlines()
    parent = "\n".join(lines[1:6]) + "\n"  # et-0/0/1 { ... speed 400g; }
    channel = "\n".join(lines[6:16]) + "\n"  # et-0/0/1:0 { ... }
    text = "interfaces {\n"
    for port, key in ports:
        base = port.split(":")[0]
        block = channel.replace("et-0/0/1:0", port).replace("to.AMD-ML3100-01", f"to.{key[0]}-rail{key[1]}")
        mtu = "" if key in JUNOS_MTU_1514 else "        mtu 9216;\n"  # without it the port keeps Junos's 1514
        block = block.replace("        mtu 9216;\n", mtu + "        gigether-options {\n            fec fec119;\n        }\n")
        text += parent.replace("et-0/0/1", base) + block
    return text + "}\n"


def _class_of_service(ports: Ports) -> str:
    """S0 2.5.3 with the JVD's pfc-watchdog, and per-port entries for the injected faults."""
    text = _read("s0-2.5.3-class-of-service.txt")
    cos = text[text.index("class-of-service {"):]
    cos = cos.replace("        cnp {\n", "        cnp {\n            pfc-watchdog;\n", 1)
    cos = cos.replace("    congestion-notification-profile {\n", OUTPUT_ONLY_CNP, 1)
    cos = cos.replace("    scheduler-maps {\n", NO_ECN, 1)
    cos = cos.replace("    classifiers {\n", CNP_IN_ROCE_CLASS, 1)
    cos = cos.replace("        s2-cnp {\n", "        s1-no-ecn {\n            drop-profile-map loss-priority any protocol any drop-profile dp1;\n"
                                          "        }\n        s2-cnp {\n", 1)
    entries = ""
    for port, key in ports:
        profile = "cnp-output-only" if key in JUNOS_OUTPUT_ONLY_PFC else "cnp"
        scheduler_map = "sm-no-ecn" if key in JUNOS_NO_ECN else "sm1"
        classifier = "dscp-cnp-lossless" if key in JUNOS_CNP_IN_ROCE_CLASS else "mydscp"
        classifier = f"            unit * {{\n                classifiers {{\n                    dscp {classifier};\n                }}\n            }}\n"
        if key in JUNOS_OUTPUT_ONLY_PFC | JUNOS_NO_ECN | JUNOS_CNP_IN_ROCE_CLASS:
            entries += (f"        {port} {{\n            congestion-notification-profile {profile};\n"
                        f"            scheduler-map {scheduler_map};\n{classifier}        }}\n")
    return cos.replace("        et-* {\n", entries + "        et-* {\n", 1)


def configuration(ports: Ports) -> str:
    return "## Last changed: 2025-06-02 10:14:51 UTC\nversion 23.4R2-S3.9-EVO;\n" + _interfaces(ports) + _class_of_service(ports)


def _extensive(ports: Ports, queue_drops: int) -> str:
    """The capture's et-0/0/0 block for every host port: 400 Gb/s, MTU 9216, flow control off; queue 4 (NO-LOSS)
    and queue 3 (CNP) in the queue counters."""
    template = (OUTPUTS / "junos-interfaces" / "genieparser-extensive-et-100g.txt").read_text(encoding="utf-8")
    template = template.replace("Speed: 100Gbps", "Speed: 400Gbps").replace("Flow control: Enabled", "Flow control: Disabled")
    template = template.replace("    1                                0                    0                    0\n"
                                "    2                                0                    0                    0\n",
                                "    4                            17184                17184                    0\n")
    blocks = []
    for port, key in ports:
        block = template.replace("et-0/0/0", port).replace("MTU: 1514", "MTU: 1514" if key in JUNOS_MTU_1514 else "MTU: 9216")
        if key in JUNOS_LINK_DOWN:
            block = block.replace("Physical link is Up", "Physical link is Down")
        if key in JUNOS_QUEUE_DROPS and queue_drops:
            block = block.replace("    4                            17184                17184                    0\n",
                                  f"    4                            17184        {17184 - queue_drops:>13}        {queue_drops:>13}\n")
        blocks.append(block.rstrip("\n") + "\n")
    return "\n".join(blocks)


def build(switch: DemoSwitch, ports: Ports) -> dict[str | None, Outputs]:
    """Outputs by recording item (None: any item); SW-007's snapshots have their own before/after episodes."""
    return {
        None: {"show configuration": (configuration(ports), 0), "show interfaces extensive": (_extensive(ports, 0), 0)},
        snapshot_item("before"): {"show interfaces extensive": (_extensive(ports, 0), 0)},
        snapshot_item("after"): {"show interfaces extensive": (_extensive(ports, 212), 0)},
    }
