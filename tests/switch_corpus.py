"""The corpus of real switch outputs (fixtures/outputs/<eos-|sonic-|junos-...>/, each source in its SOURCES.md) and the
facts a careful reader sees in each, written from the output itself (not from a parser's result). A fact is a
path into the parser's facts and the value the output shows; ``NOT_READ`` marks a fact the output shows that the
parser does not read (it counts as present and not read). Read by tests/unit/parsers/test_switch_corpus.py and
tools/switch_corpus_facts.py (the facts-read figure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NOT_READ = object()  # shown by the output, not read by the parser (a known gap, counted as not read)
ABSENT = object()  # not shown by the output: any value read there is a misread (not counted as a fact)
Path = tuple[Any, ...]


@dataclass(frozen=True)
class Output:
    """One real output: its OS and release (as the output or its source says), its folder and file, its facts."""

    os: str
    release: str
    tool: str
    name: str
    facts: dict[Path, Any]
    refused: bool = False  # an output that is not this command's (the whole output is refused)
    unread_lines: tuple[int, ...] | None = None  # the lines a careful reader agrees hold nothing this parser can read
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def port(name: str, **facts: Any) -> dict[Path, Any]:
    """Facts of one port of a configuration (``SwitchConfig.ports``)."""
    return {("ports", name, key): value for key, value in facts.items()}


def dscp(name: str, **classes: int) -> dict[Path, Any]:
    """The traffic class of DSCP values on one port (``dscp_26=3``)."""
    return {("ports", name, "dscp_to_tc", int(key.split("_")[1])): value for key, value in classes.items()}


def ecn(name: str, index: int, **facts: Any) -> dict[Path, Any]:
    return {("ports", name, "ecn_queues", index, key): value for key, value in facts.items()}


def status(name: str, **facts: Any) -> dict[Path, Any]:
    """Facts of one port of an interfaces output whose facts are (status, counters) pairs."""
    return {(name, 0, key): value for key, value in facts.items()}


def counters(name: str, pair: bool = True, **facts: Any) -> dict[Path, Any]:
    return {((name, 1, key) if pair else (name, key)): value for key, value in facts.items()}


def table(name: str, **facts: Any) -> dict[Path, Any]:
    """Facts of one row of a table parser keyed by port."""
    return {(name, key): value for key, value in facts.items()}


def watchdog(name: str, queue: int, **facts: Any) -> dict[Path, Any]:
    """The PFC watchdog statistics of one queue of a port (SONiC ``show pfcwd stats``)."""
    return {(name, "watchdog", str(queue), key): value for key, value in facts.items()}


def pfc_rx(name: str, **priorities: int) -> dict[Path, Any]:
    """PFC frames received per priority (``pfc3=0``)."""
    return {(name, "pfc_rx_priorities", int(key[3:])): value for key, value in priorities.items()}


def pfc_tx(name: str, **priorities: int) -> dict[Path, Any]:
    return {(name, "pfc_tx_priorities", int(key[3:])): value for key, value in priorities.items()}


def queue_drops(name: str, **queues: int) -> dict[Path, Any]:
    """Drops per queue label (``UC3=19``)."""
    return {(name, "queue_drops", key): value for key, value in queues.items()}


def merged(*parts: dict[Path, Any]) -> dict[Path, Any]:
    found: dict[Path, Any] = {}
    for part in parts:
        found.update(part)
    return found


EOS_DEFAULT_26, EOS_DEFAULT_48 = 3, 6  # EOS default DSCP -> traffic class (CoS 3 -> TC 3, CoS 6 -> TC 6)

CORPUS: tuple[Output, ...] = (
    # ------------------------------------------------------------------ Arista EOS
    Output("arista", "7060CX, S0 2.5.1 (document)", "eos-running-config", "running-config-s0-2.5.1.txt", merged(
        port("Ethernet1/1", mtu=9200, speed="400g-8", fec="reed-solomon", link_pause="off", pfc_enabled=True,
             no_drop_priorities=[3], dscp_trusted=True),
        ecn("Ethernet1/1", 0, queue=3, min_threshold=1024000, max_threshold=3072000, max_mark_probability=20, unit="bytes"),
        dscp("Ethernet1/1", dscp_26=EOS_DEFAULT_26, dscp_48=EOS_DEFAULT_48),
        port("Ethernet2/1", mtu=9200, speed="400g-8", fec="reed-solomon", link_pause="off", pfc_enabled=True,
             no_drop_priorities=[3]),
    )),
    Output("arista", "S3 (document, EOS 4.2x syntax)", "eos-running-config", "running-config-s3-pfc.txt", merged(
        port("Ethernet2/1/1", mtu=9000, speed="200G-4", pfc_enabled=True, no_drop_priorities=[3, 4], routed=True,
             dscp_trusted=True, link_pause="off"),
    )),
    Output("arista", "vEOS 4.15.2.1F", "eos-running-config", "napalm-show-running-config.txt", merged(
        port("Ethernet1", pfc_enabled=False, dscp_trusted=False, link_pause="off", routed=False),
        port("Ethernet2", pfc_enabled=False, dscp_trusted=False, link_pause="off"),
        port("Management1", pfc_enabled=False),
    )),
    Output("arista", "AVD eos_cli_config_gen (EOS 4.3x syntax)", "eos-running-config", "avd-qos.cfg", merged(
        port("Ethernet1", mtu=1500, routed=True, dscp_trusted=True, pfc_enabled=False, link_pause="off"),
        ecn("Ethernet1", 0, queue=2, min_threshold=320 * 1024, max_threshold=320 * 1024, max_mark_probability=90, unit="bytes"),
        ecn("Ethernet1", 1, queue=4, min_threshold=320, max_threshold=320, max_mark_probability=100, unit="segments"),
        port("Ethernet6", dscp_trusted=False, pfc_enabled=False, routed=False),
        {("ports", "Ethernet6", "dscp_to_tc"): NOT_READ},  # trust cos: no DSCP map applies, but the profile's service-policy hides it
        port("Port-Channel3", dscp_trusted=False, pfc_enabled=False),
        port("Ethernet3", dscp_trusted=False),
        {("watchdog", "action"): "no-drop", ("watchdog", "timeout_ms"): 50.0, ("watchdog", "recovery_ms"): 1220.0,
         ("watchdog", "polling_ms"): 10001.0},
    )),
    Output("arista", "AVD eos_cli_config_gen (EOS 4.3x syntax)", "eos-running-config", "avd-ethernet-interfaces.cfg", merged(
        port("Ethernet1", mtu=1500, speed="100gfull", routed=True),  # `no switchport` after its switchport settings
        port("Ethernet7", mtu=7000),
        port("Ethernet23", fec="fire-code, reed-solomon"),
        port("Ethernet24", fec="disabled"),
        port("Ethernet26", routed=True, dscp_trusted=True),
        {("ports", "Ethernet7", "pfc_enabled"): NOT_READ},  # service-profile QoS is not in this configuration
    )),
    Output("arista", "AVD eos_designs 5-stage (EOS 4.3x syntax)", "eos-running-config", "avd-dc1-pod1-leaf1a.cfg", merged(
        port("Ethernet1", routed=True, link_pause="off"),
        {("ports", "Ethernet1", "pfc_enabled"): NOT_READ, ("ports", "Ethernet1", "dscp_trusted"): NOT_READ},  # QOS-PROFILE defined elsewhere
    )),
    Output("arista", "vEOS (NAPALM mocked data)", "eos-interfaces-json", "napalm-show-interfaces.json", merged(
        status("Ethernet2", oper_up=True, mtu=9214), status("Management1", speed_gbps=1.0),
        counters("Ethernet2", in_discards=0, out_discards=0),
    )),
    Output("arista", "vEOS (NAPALM issue 68)", "eos-interfaces-json", "napalm-issue68-no-physical-address.json", merged(
        status("Loopback0", oper_up=True, mtu=65535),
    )),
    Output("arista", "vEOS (NAPALM mocked data)", "eos-interfaces-json", "napalm-interfaces-counters.json", merged(
        status("Ethernet1", oper_up=False, mtu=9214, speed_gbps=10.0), counters("Ethernet1", in_discards=0, out_discards=0),
        status("Port-Channel1", oper_up=False, mtu=1500), status("Port-Channel1.20", mtu=1500),
    )),
    Output("arista", "EOS capture (ntc-templates)", "eos-interfaces", "ntc-arista_eos_show_interfaces.raw.txt", merged(
        status("Ethernet1", oper_up=True, mtu=1500, speed_gbps=10.0), counters("Ethernet1", in_discards=0, out_discards=0),
        status("Ethernet49/1", oper_up=False, mtu=9214, speed_gbps=100.0),
        status("Port-Channel1", oper_up=False, mtu=9214), counters("Port-Channel1", in_discards=0, out_discards=0),
        status("Management1", speed_gbps=1.0), status("Vlan10", oper_up=False, mtu=1500),
    )),
    Output("arista", "EOS capture (ntc-templates)", "eos-interfaces", "ntc-arista_eos_show_interfaces2.raw.txt", merged(
        status("Ethernet1", mtu=1500, speed_gbps=1.0), status("Ethernet2", mtu=1500),
    )),
    Output("arista", "EOS capture (ntc-templates)", "eos-interfaces", "ntc-arista_eos_show_interfaces3.raw.txt", merged(
        status("Vlan888", mtu=1500),
    )),
    Output("arista", "EOS capture (ntc-templates)", "eos-interfaces", "ntc-arista_eos_show_interfaces_portchannel.raw.txt", merged(
        status("Ethernet47", oper_up=True, mtu=9214, speed_gbps=1.0), counters("Ethernet47", in_discards=0, out_discards=0),
        status("Ethernet49", oper_up=False, mtu=9214, speed_gbps=10.0),
        status("Ethernet51", mtu=1500, speed_gbps=1.0), status("Loopback0", oper_up=True, mtu=65535),
    )),
    Output("arista", "S3 (document)", "eos-pfc-counters", "s3-show-priority-flow-control-counters.txt", merged(
        table("Ethernet3/1/1", pfc_rx=0, pfc_tx=0),
    )),
    Output("arista", "S3 (document)", "eos-pfc-watchdog", "s3-show-priority-flow-control-interfaces.txt", {
        ("enabled",): True, ("action",): "drop", ("timeout_ms",): 1000.0, ("recovery_ms",): 2000.0, ("polling_ms",): 200.0,
    }),
    # ------------------------------------------------------------------ SONiC
    Output("sonic", "Force10-S6100, db version 3_0_3 (sonic-utilities)", "sonic-config-db", "sonic-utilities-config_db-s6100.json", merged(
        port("Ethernet0", mtu=9100, speed="100000", pfc_enabled=True, no_drop_priorities=[3, 4], dscp_trusted=True),
        dscp("Ethernet0", dscp_26=1, dscp_48=6, dscp_3=3),
        ecn("Ethernet0", 0, queue=3, min_threshold=1048576, max_threshold=2097152, max_mark_probability=5),
    )),
    Output("sonic", "db version 3_0_1, references (sonic-utilities)", "sonic-config-db", "sonic-utilities-config_db-3_0_1-references.json", merged(
        port("Ethernet0", mtu=9100, speed="100000", pfc_enabled=True, no_drop_priorities=[3, 4], dscp_trusted=True),
        dscp("Ethernet0", dscp_26=1, dscp_48=6),
        ecn("Ethernet0", 1, queue=4, min_threshold=1048576, max_threshold=2097152, max_mark_probability=5),
    )),
    Output("sonic", "config qos reload tables (sonic-utilities)", "sonic-config-db", "sonic-utilities-config_qos.json", {}, refused=True,
           notes="the QoS tables alone: no PORT table, so no port to judge"),
    Output("sonic", "master 2026 (sonic-utilities)", "sonic-interfaces-status", "sonic-utilities-intfutil.txt", merged(
        table("Ethernet0", oper_up=False, speed_gbps=25.0, mtu=9100, fec="rs"), table("Ethernet16", speed_gbps=0.1),
        table("Ethernet32", oper_up=True), table("PortChannel1001", oper_up=False),
    )),
    Output("sonic", "master 2026, two ASICs (sonic-utilities)", "sonic-interfaces-status", "sonic-utilities-multi-asic.txt", merged(
        table("Ethernet0", oper_up=True, speed_gbps=40.0, mtu=9100), table("Ethernet-BP256", oper_up=True, mtu=9100),
        table("PortChannel1002", speed_gbps=80.0),
    )),
    Output("sonic", "master 2026 (sonic-utilities)", "sonic-interfaces-counters", "sonic-utilities-portstat.txt", merged(
        table("Ethernet0", in_discards=100), table("Ethernet4", in_discards=1000), table("Ethernet8", in_discards=10),
        table("Ethernet9", in_discards=0),  # TX_DRP N/A: no counter
    )),
    Output("sonic", "master 2026, two ASICs (sonic-utilities)", "sonic-interfaces-counters", "sonic-utilities-multi-asic.txt", merged(
        table("Ethernet4", in_discards=1000), table("Ethernet-BP256", in_discards=100),
    )),
    Output("sonic", "master 2026 (sonic-utilities)", "sonic-pfc-counters", "sonic-utilities-pfcstat.txt", merged(
        {("Ethernet0", "pfc_rx_priorities", 0): 1200, ("Ethernet0", "pfc_rx_priorities", 3): 203,
         ("Ethernet8", "pfc_tx_priorities", 7): 817, ("Ethernet4", "pfc_tx_priorities", 0): 1410},
    )),
    Output("sonic", "master 2026, two ASICs (sonic-utilities)", "sonic-pfc-counters", "sonic-utilities-multi-asic-na.txt", merged(
        {("Ethernet-BP0", "pfc_rx_priorities", 0): 1600, ("Ethernet-BP4", "pfc_tx_priorities", 3): 813},
    )),
    Output("sonic", "master 2026 (sonic-utilities)", "sonic-pfcwd-stats", "sonic-utilities-pfcwd.txt", merged(
        {("Ethernet0", "watchdog", "3", "status"): "stormed", ("Ethernet0", "watchdog", "3", "storms_detected"): 1,
         ("Ethernet4", "watchdog", "3", "storms_restored"): 2, ("Ethernet8", "watchdog", "4", "tx_drop"): 300},
    )),
    Output("sonic", "master 2026, two ASICs (sonic-utilities)", "sonic-pfcwd-stats", "sonic-utilities-multi-asic.txt", merged(
        {("Ethernet4", "watchdog", "3", "storms_detected"): 1, ("Ethernet4", "watchdog", "3", "tx_drop"): 31,
         ("Ethernet-BP260", "watchdog", "15", "rx_drop"): 71, ("Ethernet0", "watchdog", "0", "status"): "N/A"},
    )),
    Output("sonic", "Dell Z9332 (TH3) capture, 2021 (sonic-buildimage issue 9430)", "sonic-pfcwd-stats", "buildimage-issue9430-z9332.txt", merged(
        {("Ethernet4", "watchdog", "3", "status"): "operational", ("Ethernet4", "watchdog", "3", "storms_detected"): 2,
         ("Ethernet4", "watchdog", "3", "storms_restored"): 2, ("Ethernet4", "watchdog", "3", "tx_drop"): 56035,
         ("Ethernet4", "watchdog", "3", "rx_ok"): 14053, ("Ethernet4", "watchdog", "3", "rx_drop"): 371184,
         ("Ethernet6", "watchdog", "3", "tx_drop"): 46416, ("Ethernet6", "watchdog", "3", "rx_drop"): 361565},
    )),
    Output("sonic", "master 2026 (sonic-utilities)", "sonic-queue-counters", "sonic-utilities-queuestat.txt", merged(
        {("Ethernet0", "queue_drops", "UC3"): 19, ("Ethernet4", "queue_drops", "UC3"): 48, ("Ethernet4", "queue_drops", "MC11"): 84},
    )),
    Output("sonic", "master 2026, two ASICs (sonic-utilities)", "sonic-queue-counters", "sonic-utilities-multi-asic.txt", merged(
        {("Ethernet0", "queue_drops", "UC3"): 53, ("Ethernet4", "queue_drops", "UC3"): 37, ("Ethernet-BP0", "queue_drops", "MC13"): 11},
    )),
    Output("sonic", "master 2026 (sonic-utilities)", "sonic-pfcwd-config", "sonic-utilities-with-history.txt", merged(
        table("Ethernet0", action="drop", timeout_ms=600.0, recovery_ms=600.0, polling_ms=600.0),
    )),
    Output("sonic", "2025 release (sonic-utilities d623c250)", "sonic-pfcwd-config", "sonic-utilities-four-columns.txt", merged(
        table("Ethernet8", action="drop", timeout_ms=600.0, recovery_ms=600.0),
    )),
    Output("sonic", "Dell Z9332 capture, 2021 (sonic-buildimage issue 9193)", "sonic-pfcwd-config", "buildimage-issue9193-z9332.txt", merged(
        table("Ethernet0", action="drop", timeout_ms=200.0, recovery_ms=200.0, polling_ms=100.0), table("Ethernet2", action="drop"),
    )),
    Output("sonic", "master 2026, two ASICs (sonic-utilities)", "sonic-pfcwd-config", "sonic-utilities-multi-asic.txt", merged(
        table("Ethernet-BP256", action="drop", timeout_ms=200.0, polling_ms=199.0),
    )),
    # ------------------------------------------------------------------ Junos
    Output("juniper", "QFX5240, S0 2.4.2.4 (document)", "junos-configuration", "s0-2.4.2.4-interfaces.txt", merged(
        port("et-0/0/1:0", mtu=9216, speed="400g"), port("et-0/0/1", speed="400g"), port("et-0/0/3:1", mtu=9216),
    )),
    Output("juniper", "QFX5240, S0 2.5.3 (document)", "junos-configuration", "s0-2.5.3-class-of-service.txt", {},
           notes="class-of-service without an interfaces hierarchy: understood, no port (the demo's Junos leaf joins it with S0 2.4.2.4)"),
    Output("juniper", "QFX5240-64OD, Junos OS Evolved (JVD AI back end)", "junos-configuration", "jvd-aiml-backend-leaf1_qfx5240-64od.conf", merged(
        port("et-0/0/0:0", mtu=9216, speed="400g", pfc_enabled=True, no_drop_priorities=[3], dscp_trusted=True),
        dscp("et-0/0/0:0", dscp_26=4, dscp_48=3),
        ecn("et-0/0/0:0", 1, queue=4, ecn=True, min_threshold=55.0, max_threshold=90.0, max_mark_probability=100, unit="percent"),
        {("ports", "et-0/0/0:0", "priority_queues", 3): 4, ("ports", "et-0/0/0:0", "watchdog", "enabled"): True,
         ("ports", "et-0/0/0:0", "watchdog", "polling_ms"): 100.0},
    )),
    Output("juniper", "QFX5130-32CD, Junos OS Evolved 23.4R2-S3 (JVD 5-stage)", "junos-configuration", "jvd-5stage-storage-leaf1_qfx5130-32cd.conf", merged(
        port("et-0/0/0", mtu=9216, speed="100g", pfc_enabled=False),
        ecn("et-0/0/0", 0, queue=0, ecn=True, min_threshold=0.0, max_threshold=20.0, unit="percent"),
        dscp("et-0/0/0", dscp_26=5, dscp_48=7),
    )),
    Output("juniper", "QFX5120-48YM, Junos OS 23.4R2-S3.2 (JVD 5-stage)", "junos-configuration", "jvd-5stage-compute-leaf1_qfx5120-48ym.conf", merged(
        port("xe-0/0/0", mtu=9216, pfc_enabled=False, no_drop_priorities=[]),
        port("et-0/0/48", pfc_enabled=False),  # the profile cnp (output side only) is defined, applied to no port
        {("ports", "et-0/0/48", "dscp_to_tc", 26): 5, ("ports", "et-0/0/48", "dscp_to_tc", 48): 7},
    )),
    Output("juniper", "QFX5130-32CD, Junos OS Evolved (JVD inference front end)", "junos-configuration", "jvd-inference-frontend-leaf1_qfx5130-32cd.conf", merged(
        port("et-0/0/0", mtu=9216, pfc_enabled=False), port("et-0/0/2", mtu=9216),
    )),
    Output("juniper", "QFX5220-32CD, Junos OS Evolved (JVD inference front end)", "junos-configuration", "jvd-inference-frontend-spine1_qfx5220-32cd.conf", merged(
        port("et-0/0/0", mtu=9216, pfc_enabled=False),
    )),
    Output("juniper", "vMX/MX (genieparser)", "junos-interfaces", "genieparser-extensive-et-100g.txt", merged(
        status("et-0/0/0", oper_up=True, mtu=1514, speed_gbps=100.0, link_pause="on"),
        counters("et-0/0/0", in_discards=0, out_discards=0),
        {("et-0/0/0", 1, "queue_drops", "3"): 0},
    )),
    Output("juniper", "MX (genieparser)", "junos-interfaces", "genieparser-extensive-golden_output_output.txt", merged(
        status("ge-0/0/0", oper_up=True, mtu=1514, speed_gbps=1.0, link_pause="on"), counters("ge-0/0/0", in_discards=0, out_discards=0),
    )),
    Output("juniper", "MX aggregate (genieparser)", "junos-interfaces", "genieparser-extensive-golden_output3_output.txt", merged(
        status("ae0", oper_up=True, mtu=1514, speed_gbps=1.0, link_pause="off"), counters("ae0", in_discards=0, out_discards=0),
    )),
    Output("juniper", "MX (genieparser)", "junos-interfaces", "genieparser-extensive-golden_output5_output.txt", merged(
        status("ge-9/2/2", oper_up=True, mtu=4484, speed_gbps=1.0, link_pause="on"), counters("ge-9/2/2", in_discards=0, out_discards=0),
        {("ge-9/2/2", 1, "queue_drops", "0"): 0},
    )),
    Output("juniper", "MX (genieparser)", "junos-interfaces", "genieparser-show-interfaces-1.txt", merged(
        status("ge-0/0/0", oper_up=True, mtu=1514, speed_gbps=1.0, link_pause="on"),
    )),
    Output("juniper", "SRX/EX capture (ntc-templates)", "junos-interfaces", "ntc-juniper_junos_show_interfaces.txt", merged(
        status("ge-0/0/0", oper_up=True, mtu=1514, speed_gbps=1.0, link_pause="on"),
    )),
    Output("juniper", "MX capture (ntc-templates)", "junos-interfaces", "ntc-juniper_junos_show_interfaces2.txt", merged(
        status("xe-0/1/0", oper_up=True, mtu=9114, speed_gbps=10.0, link_pause="on"),
    )),
)


def row(index: int, **facts: Any) -> dict[Path, Any]:
    """Facts of one row of a parser whose facts are a list of entries (LLDP neighbors, MAC addresses)."""
    return {(index, key): value for key, value in facts.items()}


# CAB-001's reads: where each cable ends (the LLDP neighbor tables and MAC address tables of the three OSes).
CORPUS += (
    Output("arista", "ntc-templates capture", "eos-lldp-neighbors", "ntc-templates-no-dashes.txt", merged(
        row(0, port="Ethernet1", system_name="localhost", port_id="Ethernet1"),
        row(2, port="Ethernet3/1", system_name="tg104.sjc.aristanetworks.com", port_id="Ethernet3/2"),
        row(3, port="Management1/1", system_name="dc1-rack11-tor1.sjc", port_id="1/1"))),
    Output("arista", "ntc-templates capture (dash line)", "eos-lldp-neighbors", "ntc-templates-dashes.txt", merged(
        row(0, port="Ethernet2", system_name="arista2", port_id="Ethernet2"),
        row(5, port="Ethernet7", system_name="arista2", port_id="Ethernet7"))),
    Output("arista", "cEOS 4.33.4M", "eos-lldp-neighbors", "evpn-multi-dc-dc1-leaf2b.txt", merged(
        row(0, port="Ethernet1", system_name="dc1-spine1", port_id="Ethernet4"),
        row(4, port="Ethernet5", system_name="dc1-client3", port_id="aac1.ab12.4859"),
        row(5, port="Ethernet6", system_name="dc1-client4", port_id="aac1.abe9.df56"),
        row(21, port="Management0", system_name="dc1-leaf2a", port_id="Management0"))),
    Output("arista", "cEOS lab (AVD)", "eos-lldp-neighbors", "avd-ceos-lab-dc1-pe11.txt", merged(
        row(2, port="Ethernet3", system_name="client1", port_id="aac1.ab5d.2bb4"),
        row(3, port="Ethernet4", system_name="client2", port_id="aac1.ab75.8ac6"))),
    Output("arista", "ntc-templates capture", "eos-mac-address-table", "ntc-templates.txt", merged(
        row(0, mac="00:12:36:94:03:ec", port="Ethernet7", vlan="3", kind="static"),
        row(1, mac="00:1c:73:13:a3:de", port="Ethernet32", vlan="55", kind="dynamic"),
        row(2, mac="00:1c:82:24:36:d7", port="Port-Channel2", vlan="101"))),
    Output("sonic", "Command Reference (sonic-utilities)", "sonic-lldp-table", "command-reference.txt", merged(
        row(0, port="Ethernet112", system_name="T1-1", port_id="hundredGigE1/2", port_description="T0-2:hundredGigE1/29"),
        row(2, port="eth0", system_name="swtor-b2lab2-1610", port_id="GigabitEthernet 0/2"))),
    Output("sonic", "sonic-utilities lldpshow test", "sonic-lldp-table", "sonic-utilities-two-macs.txt", merged(
        row(0, port="Ethernet0", system_name="dummy", port_id="00:00:00:00:00:01", port_description="First MAC"),
        row(1, port="Ethernet0", port_id="00:00:00:00:00:02", port_description="Second MAC"))),
    Output("sonic", "sonic-utilities fdbshow test", "sonic-mac", "sonic-utilities-show-mac.txt", merged(
        row(0, mac="11:22:33:44:55:66", port="Ethernet0", vlan="2", kind="dynamic"),
        row(3, mac="77:66:44:33:22:11", port="1000000000fff", vlan="4"))),
    Output("sonic", "sonic-utilities fdbshow test (default VLAN)", "sonic-mac", "sonic-utilities-def-vlan.txt", merged(
        row(1, mac="11:22:33:66:55:44", port="Ethernet4", vlan="3", kind="static"))),
    Output("sonic", "sonic-utilities fdbshow test (multi-ASIC)", "sonic-mac", "sonic-utilities-multi-asic.txt", merged(
        row(0, mac="11:22:33:44:55:66", port="Ethernet0", vlan="2"))),
    Output("juniper", "vMX capture (ntc-templates)", "junos-lldp-neighbors", "ntc-templates.txt", merged(
        row(0, port="ge-0/0/1", system_name="vmx2", port_id="ge-0/0/1", chassis_id="2c:6b:f5:a1:c2:c0"))),
    Output("juniper", "EX/QFX capture, aggregate members (ntc-templates)", "junos-lldp-neighbors", "ntc-templates-ae7.txt", merged(
        row(0, port="xe-0/1/1", system_name="core01.sjc01", port_id="Ethernet3/29/1"),
        row(3, port="xe-2/1/5", port_id="Ethernet3/29/4"))),
    Output("juniper", "ELS capture (ntc-templates)", "junos-ethernet-switching-table", "ntc-templates-rtr-id.txt", merged(
        row(1, mac="2c:5a:0f:bc:a3:cd", port="xe-0/0/51:0", vlan="Vlan100"))),
    Output("juniper", "ELS capture without NH/RTR (ntc-templates)", "junos-ethernet-switching-table", "ntc-templates-ae.txt", merged(
        row(0, mac="2c:5a:0f:bc:a3:cd", port="ae112", vlan="Vlan100"))),
    Output("juniper", "14.1X53-D47.6", "junos-ethernet-switching-table", "ntc-templates-14.1X53-D47.6.txt", merged(
        row(2, mac="00:0c:29:84:d2:f8", port="xe-0/0/3", vlan="Vlan3117"))),
)


ZERO_PFC = {f"pfc{priority}": 0 for priority in range(8)}
# The independent field test of issue 23's reviewers, as the project ran it on outputs it had never seen (device
# captures in public trackers, vendor documentation, generated configurations, network-automation test data):
# facts written from each output before any parser ran on it; the defects they found are fixed and tested.
FIELD_TEST: tuple[Output, ...] = (

    # ---------------------------------------------------------------- SONiC interfaces status
    Output("sonic", "7250 linecard, multi-ASIC chassis (buildimage #15148)", "sonic-interfaces-status", "buildimage-15148-7250-lc.txt", merged(
        table("Ethernet0", oper_up=False, speed_gbps=400.0, mtu=9100), table("Ethernet8", oper_up=False, speed_gbps=400.0, mtu=9100),
        table("Ethernet24", oper_up=False, speed_gbps=400.0, mtu=9100))),
    Output("sonic", "FEC column 2019 (utilities #764)", "sonic-interfaces-status", "utilities-764-fec.txt", merged(
        table("Ethernet1", oper_up=True, speed_gbps=25.0, mtu=9008, fec="none"), table("Ethernet5", oper_up=False, fec="rs"),
        table("Ethernet7", oper_up=False, speed_gbps=25.0, mtu=9008, fec="rs"))),
    Output("sonic", "Z9332f 400G (buildimage #9046)", "sonic-interfaces-status", "buildimage-9046-z9332f.txt", merged(
        table("Ethernet0", oper_up=True, speed_gbps=400.0, mtu=9100), table("Ethernet32", oper_up=True, speed_gbps=400.0, mtu=9100))),
    Output("sonic", "Z9332f breakout 100G (buildimage #6906)", "sonic-interfaces-status", "buildimage-6906-z9332f-breakout.txt", merged(
        table("Ethernet0", oper_up=False, speed_gbps=100.0, mtu=9100), table("Ethernet8", oper_up=True, speed_gbps=100.0, mtu=9100))),
    Output("sonic", "DNX 7280CR3 (buildimage #9105)", "sonic-interfaces-status", "buildimage-9105-dnx.txt", merged(
        table("Ethernet0", oper_up=True, speed_gbps=100.0, mtu=9100, fec="rs"), table("Ethernet28", oper_up=True, speed_gbps=100.0, fec="rs"))),
    Output("sonic", "2019 without FEC column (utilities #437)", "sonic-interfaces-status", "utilities-437-asym-pfc.txt", merged(
        table("Ethernet0", oper_up=True, speed_gbps=40.0, mtu=9100), table("Ethernet12", oper_up=True, speed_gbps=40.0, mtu=9100))),
    Output("sonic", "MSN2700 (sonic-mgmt parse_utils)", "sonic-interfaces-status", "mgmt-parse-utils-msn2700.txt", merged(
        table("Ethernet0", oper_up=True, speed_gbps=40.0, mtu=9100), table("Ethernet8", oper_up=True, speed_gbps=40.0, mtu=9100))),
    # ---------------------------------------------------------------- SONiC interfaces counters
    Output("sonic", "Z9332 capture without the dash line (buildimage #9193)", "sonic-interfaces-counters", "buildimage-9193-z9332.txt", merged(
        table("Ethernet0", in_discards=0, out_discards=9268210))),
    Output("sonic", "S6000 portstat 2017 (utilities #130)", "sonic-interfaces-counters", "utilities-130-s6000-portstat.txt", merged(
        table("Ethernet0", in_discards=1, out_discards=0), table("Ethernet16", in_discards=2, out_discards=0), table("Ethernet20", in_discards=2))),
    Output("sonic", "multi-ASIC 2020 (utilities #1013)", "sonic-interfaces-counters", "utilities-1013-multi-asic.txt", merged(
        table("Ethernet0", in_discards=0, out_discards=0), table("Ethernet12", in_discards=0), table("Ethernet20", out_discards=0))),
    Output("sonic", "400G with blank lines (buildimage #19644)", "sonic-interfaces-counters", "buildimage-19644-400g-blank-lines.txt", merged(
        table("Ethernet0", in_discards=1, out_discards=0), table("Ethernet12", in_discards=1, out_discards=0))),
    Output("sonic", "portstat -a 2019 (buildimage #6834)", "sonic-interfaces-counters", "buildimage-6834-portstat-a.txt", merged(
        table("Ethernet0", in_discards=0), table("Ethernet1", in_discards=0))),
    Output("sonic", "large counters (utilities #676)", "sonic-interfaces-counters", "utilities-676-large-counters.txt", merged(
        table("Ethernet0", in_discards=0, out_discards=0), table("Ethernet12", in_discards=0, out_discards=0))),
    Output("sonic", "Command Reference", "sonic-interfaces-counters", "doc-command-reference-counters.txt", merged(
        table("Ethernet0", in_discards=18682, out_discards=0), table("Ethernet4", in_discards=1636), table("Ethernet20", in_discards=2174))),
    Output("sonic", "Command Reference -p 5", "sonic-interfaces-counters", "doc-command-reference-period.txt", merged(
        table("Ethernet24", in_discards=0, out_discards=0),
        # the document's example aligns this row by hand: its TX_BPS cell runs out of its dashes, the row is refused
        {("Ethernet0", "in_discards"): NOT_READ, ("Ethernet0", "out_discards"): NOT_READ})),
    Output("sonic", "Command Reference errors", "sonic-interfaces-counters", "doc-command-reference-errors.txt", merged(
        table("Ethernet0", in_discards=4, out_discards=0), table("Ethernet8", in_discards=1), table("Ethernet12", in_discards=0))),
    Output("sonic", "-p 3 (sonic-utilities)", "sonic-interfaces-counters", "sonic-utilities-period.txt", merged(
        table("Ethernet0", in_discards=0), table("Ethernet8", in_discards=0), {("Ethernet0", "out_discards"): ABSENT})),
    # ---------------------------------------------------------------- SONiC pfc counters
    Output("sonic", "pfcstat 2020 (buildimage #5540)", "sonic-pfc-counters", "buildimage-5540-pfcstat.txt", merged(
        pfc_rx("Ethernet0", **ZERO_PFC), pfc_rx("Ethernet4", pfc3=0))),
    Output("sonic", "Tx table 2020 (utilities #1057)", "sonic-pfc-counters", "utilities-1057-tx.txt", merged(
        pfc_tx("Ethernet0", **ZERO_PFC), pfc_tx("Ethernet24", pfc3=0, pfc4=0))),
    Output("sonic", "7250 chassis Tx (buildimage #15148)", "sonic-pfc-counters", "buildimage-15148-7250-tx.txt", merged(
        pfc_tx("Ethernet0", pfc3=0, pfc4=0), pfc_tx("Ethernet104", pfc3=0))),
    Output("sonic", "Command Reference", "sonic-pfc-counters", "doc-command-reference.txt", merged(
        pfc_rx("Ethernet0", pfc3=0), pfc_rx("Ethernet4", pfc4=0), pfc_tx("Ethernet8", pfc3=0),
        {("Ethernet12", "pfc_rx_priorities", 3): NOT_READ})),  # the document's row starts left of its dashes: refused
    # ---------------------------------------------------------------- SONiC queue counters
    Output("sonic", "Mellanox trimming capture 2025 (sonic-mgmt)", "sonic-queue-counters", "mgmt-trimming-mlnx.txt", merged(
        queue_drops("Ethernet0", UC0=100, UC1=0, UC6=0, UC7=0))),
    Output("sonic", "--all columns (sonic-mgmt test plan)", "sonic-queue-counters", "mgmt-trimming-all.txt", merged(
        queue_drops("Ethernet0", UC1=100), {("Ethernet0", "queue_drops", "UC0"): ABSENT, ("Ethernet0", "queue_drops", "UC3"): ABSENT})),
    Output("sonic", "7050CX3 (buildimage #6290)", "sonic-queue-counters", "buildimage-6290-7050cx3.txt", merged(
        queue_drops("Ethernet4", UC0=0, UC3=0, MC10=48, MC11=260, MC13=0))),
    Output("sonic", "large counters (utilities #2393)", "sonic-queue-counters", "utilities-2393-pfc2.txt", merged(
        queue_drops("Ethernet196", UC1=6841131615, UC3=0, MC13=0))),
    Output("sonic", "Command Reference", "sonic-queue-counters", "doc-command-reference.txt", merged(
        queue_drops("Ethernet0", UC0=0, UC9=0, MC9=0))),
    Output("sonic", "chassis, --voq (sonic-utilities)", "sonic-queue-counters", "sonic-utilities-voq.txt", merged(
        queue_drops("testsw|Ethernet0", VOQ1=39, VOQ7=95), {("Ethernet0", "queue_drops", "VOQ1"): ABSENT})),
    # ---------------------------------------------------------------- SONiC pfcwd
    Output("sonic", "7060 (sonic-mgmt pfcwd_helper)", "sonic-pfcwd-stats", "mgmt-pfcwd-helper-7060.txt", merged(
        watchdog("Ethernet112", 4, status="N/A", storms_detected=2, storms_restored=2, tx_ok=100, tx_drop=100, rx_ok=100, rx_drop=100))),
    Output("sonic", "2019 operational (utilities #682)", "sonic-pfcwd-stats", "utilities-682-operational.txt", merged(
        watchdog("Ethernet36", 4, status="operational", storms_detected=1, tx_drop=100, rx_ok=0, rx_drop=100),
        watchdog("Ethernet96", 4, storms_detected=5, storms_restored=5, tx_ok=200, tx_drop=400, rx_ok=100, rx_drop=300))),
    Output("sonic", "2019 stopped (utilities #682)", "sonic-pfcwd-stats", "utilities-682-stopped.txt", merged(
        watchdog("Ethernet36", 4, status="N/A", storms_detected=1), watchdog("Ethernet96", 3, status="N/A", tx_drop=0))),
    Output("sonic", "2019 (utilities #500)", "sonic-pfcwd-stats", "utilities-500-storm-status.txt", merged(
        watchdog("Ethernet36", 3, status="operational", storms_detected=18, storms_restored=9, tx_drop=1800, rx_drop=1800),
        watchdog("Ethernet96", 4, tx_drop=1700))),
    Output("sonic", "DX010 stormed (buildimage #5898)", "sonic-pfcwd-stats", "buildimage-5898-dx010-stormed.txt", merged(
        watchdog("Ethernet44", 4, status="stormed", storms_detected=1, storms_restored=0, tx_drop=0))),
    Output("sonic", "7260CX3 empty table (utilities #1077)", "sonic-pfcwd-stats", "utilities-1077-empty.txt", {}),
    Output("sonic", "VOQ chassis (buildimage #17434)", "sonic-pfcwd-config", "buildimage-17434-voq.txt", merged(
        table("Ethernet0", action="drop", timeout_ms=300.0, recovery_ms=300.0))),
    # ---------------------------------------------------------------- SONiC config_db
    Output("sonic", "t0 config_db (utilities filter_fdb)", "sonic-config-db", "utilities-filter-fdb-config_db.json", merged(
        port("Ethernet4", mtu=9100, speed="40000", pfc_enabled=True, no_drop_priorities=[3, 4], dscp_trusted=True),
        dscp("Ethernet4", dscp_26=1, dscp_48=6, dscp_3=3, dscp_4=4, dscp_46=5),
        ecn("Ethernet4", 0, queue=3, ecn=True, min_threshold=1048576, max_threshold=2097152, max_mark_probability=5),
        ecn("Ethernet4", 1, queue=4, ecn=True),
        {("ports", "Ethernet4", "watchdog", "enabled"): True, ("ports", "Ethernet4", "watchdog", "action"): "drop",
         ("ports", "Ethernet4", "watchdog", "timeout_ms"): 200, ("ports", "Ethernet4", "watchdog", "recovery_ms"): 200,
         ("ports", "Ethernet4", "watchdog", "polling_ms"): 200},
        port("Ethernet0", mtu=9100, pfc_enabled=False, no_drop_priorities=[], dscp_trusted=False),
        {("ports", "Ethernet0", "watchdog", "enabled"): False})),
    Output("sonic", "t0 config_db (utilities counterpoll)", "sonic-config-db", "utilities-counterpoll-config_db.json", merged(
        port("Ethernet8", mtu=9100, speed="40000", pfc_enabled=True, no_drop_priorities=[3, 4], dscp_trusted=True),
        dscp("Ethernet8", dscp_26=1, dscp_48=6), ecn("Ethernet8", 0, queue=3, min_threshold=1048576),
        port("Ethernet0", pfc_enabled=False, dscp_trusted=False), {("ports", "Ethernet8", "watchdog", "enabled"): False})),


    # ---------------------------------------------------------------- EOS running-config
    Output("arista", "show running-config all, EOS (Batfish)", "eos-running-config", "batfish-arista_interface_show_run_all.cfg", merged(
        port("Ethernet1/1", mtu=9212, speed="100gfull", routed=True, dscp_trusted=True, pfc_enabled=False, no_drop_priorities=[],
             link_pause="off", ecn_queues=[]),
        dscp("Ethernet1/1", dscp_26=EOS_DEFAULT_26, dscp_48=EOS_DEFAULT_48),
        port("Ethernet1/2", routed=False, dscp_trusted=False, pfc_enabled=False, speed="auto", link_pause="off", ecn_queues=[]))),
    Output("arista", "show running-config all, DCS-7260CX3-64 EOS-4.21.7M (Batfish)", "eos-running-config", "batfish-arista_interface_show_run_all_2.cfg", merged(
        port("Ethernet1/1", mtu=9212, speed="100gfull", routed=True, dscp_trusted=True, pfc_enabled=False, link_pause="off", ecn_queues=[]),
        dscp("Ethernet1/1", dscp_26=EOS_DEFAULT_26),
        port("Ethernet1/3", routed=False, dscp_trusted=False, pfc_enabled=False, speed="auto", link_pause="off"),
        port("Loopback0", mtu=1500), port("Management1", mtu=1500, link_pause="off"))),
    Output("arista", "show running-config all, DCS-7260CX3-64E EOS-4.22.3M (Batfish)", "eos-running-config", "batfish-arista_interface_show_run_all_3.cfg", merged(
        port("Ethernet1/1", mtu=9212, speed="100gfull", routed=True, dscp_trusted=True, pfc_enabled=False, link_pause="off", ecn_queues=[]),
        port("Ethernet1/3", routed=False, dscp_trusted=False, pfc_enabled=False, speed="auto"),
        port("Management1", mtu=1500))),
    Output("arista", "show running-config all, DCS-7260CX-64 EOS-4.22.3M (Batfish)", "eos-running-config", "batfish-qos.cfg", merged(
        port("Ethernet1/1", routed=True, dscp_trusted=True, pfc_enabled=False, link_pause="off"), dscp("Ethernet1/1", dscp_26=EOS_DEFAULT_26),
        port("Ethernet1/2", routed=True, dscp_trusted=True, pfc_enabled=False))),
    Output("arista", "EOS-4.19.0F (Batfish)", "eos-running-config", "batfish-arista100gfull.cfg", merged(
        port("Ethernet1/1", routed=True, speed="100gfull", dscp_trusted=True, pfc_enabled=False, link_pause="off"))),
    Output("arista", "EOS (Batfish)", "eos-running-config", "batfish-aristaInterface.cfg", merged(
        port("Ethernet3/2/1", mtu=9000, pfc_enabled=False), port("Ethernet3/2/1.4", routed=True))),
    Output("arista", "AVD eos_designs connected endpoints", "eos-running-config", "avd-connected_endpoints.cfg", merged(
        port("Ethernet4", routed=False, pfc_enabled=False, dscp_trusted=False, link_pause="off"),
        port("Ethernet1", pfc_enabled=False, link_pause="off"),
        {("ports", "Ethernet12", "pfc_enabled"): NOT_READ, ("ports", "Port-Channel17", "pfc_enabled"): NOT_READ},
        port("Port-Channel17", routed=False))),
    Output("arista", "AVD eos_cli_config_gen port-channels", "eos-running-config", "avd-port-channel-interfaces.cfg", merged(
        port("Port-Channel8", routed=True, dscp_trusted=True, pfc_enabled=False),
        port("Port-Channel17", routed=True, dscp_trusted=True, pfc_enabled=False), dscp("Port-Channel17", dscp_26=EOS_DEFAULT_26),
        port("Port-Channel101", routed=False, dscp_trusted=False), port("Port-Channel3", routed=False, dscp_trusted=False),
        port("Port-Channel100.101", mtu=1500, routed=True))),
    Output("arista", "AVD eos_designs WAN edge", "eos-running-config", "avd-cv-pathfinder-edge1.cfg", merged(
        port("Ethernet52", mtu=9214, routed=True, dscp_trusted=True, pfc_enabled=False),
        port("Ethernet52.142", mtu=9214, routed=True), port("Ethernet1/49.3", routed=True),
        port("Ethernet3", routed=True, pfc_enabled=False, dscp_trusted=True), port("Dps1", mtu=9194))),
    # ---------------------------------------------------------------- EOS show interfaces
    Output("arista", "cEOS (FakeNOS recording)", "eos-interfaces", "fakenos-ceos1.txt", merged(
        status("Ethernet1", oper_up=True, mtu=1500, speed_gbps=1.0), counters("Ethernet1", in_discards=0, out_discards=0),
        status("Ethernet3", oper_up=True, mtu=9214, speed_gbps=1.0), counters("Ethernet3", in_discards=0, out_discards=0),
        status("Ethernet4", oper_up=True, mtu=9214, speed_gbps=1.0), counters("Ethernet4", in_discards=0),
        status("Loopback0", oper_up=True, mtu=65535), {("Loopback0", 1, "in_discards"): ABSENT, ("Loopback0", 0, "speed_gbps"): ABSENT},
        status("Management0", oper_up=True, mtu=1500, speed_gbps=1.0), counters("Management0", in_discards=47, out_discards=0),
        status("Vlan500", oper_up=True, mtu=1500))),
    Output("arista", "vEOS (NAPALM get_facts)", "eos-interfaces-json", "napalm-get-facts-show_interfaces.json", merged(
        status("Management1", oper_up=True, mtu=1500, speed_gbps=1.0), counters("Management1", in_discards=0, out_discards=0),
        status("Ethernet1", oper_up=True, mtu=9214), counters("Ethernet4", in_discards=0, out_discards=0))),
    # ---------------------------------------------------------------- Junos configuration
    Output("juniper", "QFX5240-64OD spine, Evolved (JVD AI back end)", "junos-configuration", "jvd-aiml_multitenancy_backend-spine1_qfx5240-64od.conf", merged(
        port("et-0/0/0:0", mtu=9216, speed="400g", pfc_enabled=True, no_drop_priorities=[3], dscp_trusted=True),
        dscp("et-0/0/0:0", dscp_26=4, dscp_48=3),
        ecn("et-0/0/0:0", 0, queue=3, ecn=False), ecn("et-0/0/0:0", 1, queue=4, ecn=True, min_threshold=55.0, max_threshold=90.0, max_mark_probability=100, unit="percent"),
        {("ports", "et-0/0/0:0", "priority_queues", 3): 4, ("ports", "et-0/0/0:0", "watchdog", "enabled"): True},
        port("et-0/0/2:0", pfc_enabled=True, no_drop_priorities=[3]), port("et-0/0/0", speed="400g"))),
    Output("juniper", "QFX5230-64CD, Evolved 23.4R2-S3 (JVD 5-stage)", "junos-configuration", "jvd-5stage_evpn_vxlan-superspine1_qfx5230-64cd.conf", merged(
        port("et-0/0/0", mtu=9216, speed="100g", pfc_enabled=False, no_drop_priorities=[], dscp_trusted=True),
        dscp("et-0/0/0", dscp_26=5, dscp_48=7, dscp_10=0, dscp_0=1),
        ecn("et-0/0/0", 0, queue=0, ecn=True, min_threshold=0.0, max_threshold=20.0, max_mark_probability=100, unit="percent"),
        ecn("et-0/0/0", 1, queue=1, ecn=False), ecn("et-0/0/0", 2, queue=2, ecn=True, min_threshold=1.0, max_threshold=2.0))),
    Output("juniper", "QFX5220-32CD, Evolved 23.4R2-S3 (JVD 5-stage)", "junos-configuration", "jvd-5stage_evpn_vxlan-storage-spine1_qfx5220-32cd.conf", merged(
        port("et-0/0/0", mtu=9216, pfc_enabled=False, dscp_trusted=True), dscp("et-0/0/0", dscp_26=5),
        ecn("et-0/0/0", 0, queue=0, ecn=True, max_threshold=20.0))),
    Output("juniper", "QFX5210-64C, Junos 23.4R2-S3.2 (JVD 5-stage)", "junos-configuration", "jvd-5stage_evpn_vxlan-compute-spine1_qfx5210-64c.conf", merged(
        port("et-0/0/0", mtu=9216, pfc_enabled=False, dscp_trusted=True), dscp("et-0/0/0", dscp_26=5, dscp_48=7, dscp_10=0),
        ecn("et-0/0/0", 0, queue=0, ecn=True, min_threshold=0.0, max_threshold=20.0), ecn("et-0/0/0", 2, queue=2, ecn=True, min_threshold=1.0, max_threshold=2.0))),
    Output("juniper", "QFX5700, Evolved 22.2R3-S3.12 (JVD 3-stage)", "junos-configuration", "jvd-configuration-borderleaf1_qfx5700.conf", merged(
        port("et-0/0/2", mtu=9216, pfc_enabled=False), port("et-0/0/0", pfc_enabled=False))),
    Output("juniper", "QFX5120-48Y, Junos 22.2R3-S3.18 (JVD 3-stage)", "junos-configuration", "jvd-3stage_dc-server-leaf1_qfx5120-48y.conf", merged(
        port("xe-0/0/0", mtu=9216, pfc_enabled=False), port("xe-0/0/1", pfc_enabled=False))),
    Output("juniper", "QFX5120-48Y, Junos 22.2R3-S3.18 (JVD 3-stage ESI)", "junos-configuration", "jvd-3stage_dc-esi-leaf1_qfx5120-48y.conf", merged(
        port("xe-0/0/0", mtu=9216, pfc_enabled=False), port("xe-0/0/1", pfc_enabled=False))),
    Output("juniper", "QFX5210, display set (JVD automation)", "junos-configuration", "jvd-automation-cu_du_qfx5210.set", merged(
        port("et-0/0/2", pfc_enabled=False), port("et-0/0/4", pfc_enabled=False), port("xe-0/0/8:0", pfc_enabled=False))),
    # ---------------------------------------------------------------- Junos show interfaces
    Output("juniper", "MX ae0 extensive (genieparser)", "junos-interfaces", "genieparser-ShowInterfacesExtensive-golden_output4.txt", merged(
        status("ae0", oper_up=True, mtu=1514, speed_gbps=2.0, link_pause="off"), counters("ae0", in_discards=0, out_discards=0),
        {("ae0", 1, "queue_drops", "0"): 0, ("ae0", 1, "queue_drops", "3"): 0})),
    Output("juniper", "ae0 extensive, tab-ended lines (genieparser)", "junos-interfaces", "genieparser-ShowInterfacesExtensive-golden_output_1.txt", merged(
        status("ae0", oper_up=True, mtu=1514, speed_gbps=30.0, link_pause="off"))),
    Output("juniper", "MX extensive, flattened indentation (genieparser)", "junos-interfaces", "genieparser-ShowInterfaces-golden_output_2.txt", merged(
        status("ge-0/0/0", oper_up=True, mtu=1514, speed_gbps=1.0, link_pause="on"), counters("ge-0/0/0", in_discards=0, out_discards=0),
        status("ge-0/0/2", oper_up=True, mtu=1514, speed_gbps=1.0), counters("ge-0/0/2", out_discards=0))),
    Output("juniper", "MX show interfaces ge-0/0/0 (genieparser)", "junos-interfaces", "genieparser-ShowInterfaces-golden_output_3.txt", merged(
        status("ge-0/0/0", oper_up=True, mtu=1514, speed_gbps=1.0, link_pause="on"), {("ge-0/0/0", 1, "in_discards"): ABSENT})),
    Output("juniper", "show interfaces ge-0/0/1.0, a logical unit (genieparser)", "junos-interfaces", "genieparser-ShowInterfaces-golden_output_4.txt", {}),
    Output("juniper", "lo0 (genieparser)", "junos-interfaces", "genieparser-ShowInterfaces-golden_output_5.txt", merged(
        status("lo0", oper_up=True), {("lo0", 0, "mtu"): ABSENT})),
    Output("juniper", "MX show interfaces queue (genieparser)", "junos-interfaces", "genieparser-ShowInterfacesQueue-golden_output.txt", merged(
        {("ge-0/0/2", 0, "oper_up"): True, ("ge-0/0/2", 1, "queue_drops", "0"): 0, ("ge-0/0/2", 1, "queue_drops", "4"): 0})),
    Output("juniper", "SRX show interfaces statistics (genieparser)", "junos-interfaces", "genieparser-ShowInterfacesStatistics-golden_output.txt", merged(
        status("ge-0/0/0", oper_up=True, mtu=1514, speed_gbps=1.0, link_pause="on"), {("ge-0/0/0", 1, "in_discards"): ABSENT})),
    Output("juniper", "QFX show interfaces et-0/0/0 detail (genieparser)", "junos-interfaces", "genieparser-ShowInterfacesInterfaceDetail-golden_output.txt", merged(
        status("et-0/0/0", oper_up=True, mtu=1514, speed_gbps=100.0, link_pause="on"),
        {("et-0/0/0", 1, "queue_drops", "0"): 0, ("et-0/0/0", 1, "queue_drops", "3"): 0})),
    Output("juniper", "irb logical unit (ntc-templates)", "junos-interfaces", "ntc-juniper_junos_show_interfaces_irb.txt", {}),
)
CORPUS = CORPUS + FIELD_TEST
