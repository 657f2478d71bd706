"""The demo's leaf switches: leaf1 and leaf3 run Arista EOS, leaf2 runs SONiC, leaf4 runs Junos (a QFX5240). Their
outputs are built from real captured outputs: the S0 2.5.1 running-config and the S3 show commands (EOS), NAPALM's
EOS `show interfaces | json` test capture, SONiC's own test data for config_db, `show interfaces status`,
`show pfc counters`, `show queue counters`, `show interfaces counters` and `show pfcwd stats`, S0 2.4.2.4/2.5.3's
QFX5240 configuration and a Junos `show interfaces extensive` capture (fixtures/outputs/*/SOURCES.md). Rails 0-3 of
node01..node04 are cabled to leaf1, rails 4-5 to leaf2, rail 6 to leaf3, rail 7 to leaf4 (the VMware guests are
not cabled).

Injected mismatches, each a documented failure mode:
- leaf1 Ethernet6/1 (node02 rail 1): qos profile with priority 4 no-drop instead of 3 (SW-001; the NIC's
  ROCE_PRI=3 is not no-drop there: NSW-001);
- leaf1 Ethernet3/1 (node03 rail 0): deterministic ECN marking (min = max, 100 %), DCQCN-D on the switch while
  the NIC runs DCQCN-P (SW-002, NSW-004); node02 bnxt_re0 runs cc_mode 0 (config_qos) against leaf1's
  probabilistic marking (NSW-004 from the NIC side);
- leaf2 Ethernet32 (node01 rail 5): no DSCP -> TC map bound, DSCP not trusted (SW-003 on leaf2, NSW-002);
- leaf1 Ethernet4/1 (node04 rail 0): mtu 1500 (SW-004, NSW-003); leaf2 Ethernet16 (node03 rail 4): mtu 9000,
  no room for the headers of the NIC's 9000-byte frames (NSW-003 only);
- leaf3: PFC watchdog action errdisable, not drop (SW-005; leaf1 drops);
- leaf2 Ethernet24 (node04 rail 4): link down (SW-006);
- leaf1 Ethernet9/1 (node01 rail 2): 12 input discards during the traffic tests; leaf2 Ethernet0 (node01 rail 4):
  a PFC storm detected on queue 3 (SW-007).

On leaf4 (Junos), one port of each check fails, the others pass:
- et-0/0/1:0 (node01 rail 7): a congestion notification profile with only an output side: no PFC generated on
  ingress (SW-001, NSW-001) and no pfc-watchdog (SW-005);
- et-0/0/2:0 (node02 rail 7): the NO-LOSS class's scheduler marks no ECN (SW-002, NSW-004) and its link is down
  (SW-006);
- et-0/0/3:0 (node03 rail 7): a DSCP classifier that puts the CNP code point (110000) in the NO-LOSS class with
  RoCE (SW-003, NSW-002) and 212 packets dropped on queue 4 during the traffic tests (SW-007);
- et-0/0/4:0 (node04 rail 7): no MTU statement, 1514 bytes (SW-004, NSW-003).
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.demo_cluster.topology import NODE_COUNT, DemoNode, DemoSlot


@dataclass(frozen=True)
class DemoSwitch:
    name: str
    os: str
    address: str
    rails: tuple[int, ...]

    def port(self, node: DemoNode, slot: DemoSlot) -> str:
        """The port cabling ``slot`` of ``node``: EOS Ethernet<n>/1, SONiC Ethernet<8(n-1)> (400G, 8 lanes), Junos
        the first channel of breakout port et-0/0/<n>."""
        position = self.rails.index(slot.index) * NODE_COUNT + node.number
        if self.os == "juniper":
            return f"et-0/0/{position}:0"
        return f"Ethernet{position}/1" if self.os == "arista" else f"Ethernet{8 * (position - 1)}"


PFC_PRIORITY_4 = {("node02", 1)}
DETERMINISTIC_ECN = {("node03", 0)}
UNTRUSTED_DSCP = {("node01", 5)}
MTU_1500 = {("node04", 0)}
MTU_9000 = {("node03", 4)}
LINK_DOWN = {("node04", 4)}
DISCARDS = {("node01", 2)}
PFC_STORM = {("node01", 4)}
WATCHDOG_ERRDISABLE = {"leaf3"}
JUNOS_OUTPUT_ONLY_PFC = {("node01", 7)}
JUNOS_NO_ECN = {("node02", 7)}
JUNOS_LINK_DOWN = {("node02", 7)}
JUNOS_CNP_IN_ROCE_CLASS = {("node03", 7)}
JUNOS_QUEUE_DROPS = {("node03", 7)}
JUNOS_MTU_1514 = {("node04", 7)}

SWITCHES = (
    DemoSwitch("leaf1", "arista", "10.10.0.2", (0, 1, 2, 3)),
    DemoSwitch("leaf2", "sonic", "10.10.0.3", (4, 5)),
    DemoSwitch("leaf3", "arista", "10.10.0.4", (6,)),
    DemoSwitch("leaf4", "juniper", "10.10.0.5", (7,)),
)


def cabling(node: DemoNode, slot: DemoSlot) -> tuple[DemoSwitch, str] | None:
    """The switch and port of a bare-metal node's NIC; VMware guests are not cabled in the demo."""
    if node.vmware:
        return None
    switch = next(s for s in SWITCHES if slot.index in s.rails)
    return switch, switch.port(node, slot)


def host_ports(switch: DemoSwitch, nodes: tuple[DemoNode, ...]) -> list[tuple[str, tuple[str, int]]]:
    """The switch's host-facing ports in port order, each with the (node, rail) cabled there."""
    found = [(node, slot) for node in nodes if not node.vmware for slot in node.slots if slot.index in switch.rails]
    found.sort(key=lambda ns: (switch.rails.index(ns[1].index), ns[0].number))
    return [(switch.port(node, slot), (node.name, slot.index)) for node, slot in found]
