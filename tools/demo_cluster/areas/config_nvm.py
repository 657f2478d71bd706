"""Demo outputs of the NIC NVM checks (NVM-001..006): niccli nvm --getoption samples of S1.

Injected faults, each a documented failure mode:
- node03 bnxt_re7: RDMA disabled in NVM (NVM-001);
- node04 bnxt_re3: performance profile left at Default (NVM-002);
- node02 bnxt_re4: PCIe relaxed ordering disabled, as in S1's sample before the change (NVM-003);
- node01 bnxt_re5: firmware DCBX and LLDP nearest bridge enabled, so QoS is not applied (NVM-004/005, S0 5.1 FAQ 5);
- node03 bnxt_re0: LLDP nearest non-TPMR bridge enabled (NVM-006).
"""

from __future__ import annotations

from pytest_gpufabric.commands import sh
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

# option -> (scoped, good value as S1 prints it, faulty value, faulty (node, slot))
OPTIONS = {
    "support_rdma": (True, "True", "False", {("node03", 7)}),
    "performance_profile": (False, "RoCE", "Default", {("node04", 3)}),
    "pcie_relaxed_ordering": (False, "Enabled", "Disabled", {("node02", 4)}),
    "dcbx_mode": (True, "Disabled", "Enabled", {("node01", 5)}),
    "lldp_nearest_bridge": (True, "Disabled", "Enabled", {("node01", 5)}),
    "lldp_nearest_non_tpmr_bridge": (True, "Disabled", "Enabled", {("node03", 0)}),
}


def build(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    for slot in node.slots:
        for name, (scoped, good, bad, faulty) in OPTIONS.items():
            words = ["niccli", "--dev", slot.nic, "nvm", "--getoption", name] + (["--scope", "0"] if scoped else [])
            value = bad if (node.name, slot.index) in faulty else good
            outputs[sh(*words)] = (f"{name} = {value}\n", 0)
    return outputs
