"""Demo outputs that `gpufabric discover` reads besides the checks' own (rdma link, ip, ethtool, rocm-smi,
lspci and the sysfs PCIe paths come from the other areas): the hypervisor, the NVIDIA GPU names and the
tools a node does not have (no node runs lldpd: switch and port stay for the user to fill in).

The PCIe paths (basics.py) follow the topology tables of the documents: S0 2.8.2 (NIC0 0000:1d:00.0 beside
GPU0 0000:1c:00.0, NIC4 0000:9f:00.0 beside GPU4 0000:9e:00.0, "GPU0 is nearest to NIC0") and S1 Appendix E
(GPU i and bnxt_re i below one PCIe switch of their own), so discovery pairs bnxt_re i with GPU i.
"""

from __future__ import annotations

from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

NOT_FOUND = 127


def _not_installed(tool: str) -> tuple[str, int]:
    return f"bash: line 1: {tool}: command not found\n", NOT_FOUND


def build(node: DemoNode) -> Outputs:
    lldp = {"lldpctl -f keyvalue": _not_installed("lldpctl")}
    if node.vmware:
        names = "index, pci.bus_id, name\n" + "".join(
            f"{s.index}, 0000{s.gpu.upper()}, NVIDIA H100 80GB HBM3\n" for s in node.slots
        )
        return {
            **lldp,
            "systemd-detect-virt": ("vmware\n", 0),
            "rocm-smi --showbus": _not_installed("rocm-smi"),
            "nvidia-smi --query-gpu=index,pci.bus_id,name --format=csv": (names, 0),
        }
    return {**lldp, "systemd-detect-virt": ("none\n", 1)}
