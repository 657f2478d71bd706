"""Demo outputs of the NIC QoS checks (QOS-001..009): niccli samples of S0 2.5 and S0 5.1 FAQ 5.

Injected faults, each a documented failure mode:
- node01 bnxt_re5: firmware DCBX on (config_nvm), so bnxt_re left QoS in the all-zero state and logged
  "Fail to setets" (QOS-001..006, S0 5.1 FAQ 5; HOST-004 sees the dmesg line);
- node03: bnxt_re.conf says ROCE_BW=60 (config_drivers) while the NICs run 50% (QOS-002 against the conf);
- node02 bnxt_re6: priority 3 mapped to TC0 in the pri2cos map (QOS-007);
- node04 bnxt_re1: CNP DSCP 48 missing from dscp2prio (QOS-008);
- node02 bnxt_re0: congestion control in DCQCN-D mode (0) while the switches mark for DCQCN-P (QOS-009, S3).
"""

from __future__ import annotations

from pytest_gpufabric.commands import sh
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

UNCONFIGURED = {("node01", 5)}
PRI2COS_WRONG = {("node02", 6)}
DSCP_CNP_MISSING = {("node04", 1)}
DCQCN_D = {("node02", 0)}

# S0 2.5 niccli --dev 1 qos --ets --show, configured and (FAQ 5) unconfigured
CONFIGURED = """IEEE 8021QAZ ETS Configuration TLV:
         PRIO_MAP: 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:2
         TC Bandwidth: 50% 50% 0% 0% 0% 0% 0% 0%
         TSA_MAP: 0:ets 1:ets 2:strict 3:strict 4:strict 5:strict 6:strict 7:strict
IEEE 8021QAZ PFC TLV:
         PFC enabled: 3
IEEE 8021QAZ APP TLV:
         APP#0:
          Priority: 7
          Sel: 5
          DSCP: 48

         APP#1:
          Priority: 3
          Sel: 5
          DSCP: 26

         APP#2:
          Priority: 3
          Sel: 3
          UDP or DCCP: 4791

TC Rate Limit: 100% 100% 100% 0% 0% 0% 0% 0%
"""
NOT_CONFIGURED = """IEEE 8021QAZ ETS Configuration TLV:
         PRIO_MAP: 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0
         TC Bandwidth: 0% 0% 0% 0% 0% 0% 0% 0%
         TSA_MAP: 0:strict 1:strict 2:strict 3:strict 4:strict 5:strict 6:strict 7:strict
IEEE 8021QAZ PFC TLV:
         PFC enabled: none
"""


def _pri2cos(wrong: bool) -> str:
    """S0 2.5 niccli qos --listmap --pri2cos."""
    rows = {3: (0, 4) if wrong else (1, 0), 7: (2, 5)}
    body = "".join(f" {p}         {rows.get(p, (0, 4))[0]}    {rows.get(p, (0, 4))[1]}\n" for p in range(8))
    return "Base Queue is 0 for port 0.\n------------------------\nPriority   TC HW Queue ID\n------------------------\n" + body


def build(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    for slot in node.slots:
        key = (node.name, slot.index)
        outputs[sh("niccli", "--dev", slot.nic, "qos", "--ets", "--show")] = (NOT_CONFIGURED if key in UNCONFIGURED else CONFIGURED, 0)
        outputs[sh("niccli", "--dev", slot.nic, "qos", "--listmap", "--pri2cos")] = (_pri2cos(key in PRI2COS_WRONG), 0)
        cnp = "" if key in DSCP_CNP_MISSING else "          priority:7  dscp:48,\n"
        outputs[sh("niccli", "--dev", slot.nic, "qos", "--dscp2prio")] = ("dscp2prio mapping:\n" + cnp + "          priority:3  dscp:26,\n", 0)
        outputs[sh("cat", f"/sys/kernel/config/bnxt_re/{slot.rdma_device}/ports/1/cc/cc_mode")] = ("0\n" if key in DCQCN_D else "1\n", 0)
    return outputs
