"""Demo outputs of the VMware checks (VM-001..003), read on the ESX host over ssh: S1 samples.

Injected faults (node06's host), each a documented failure mode:
- disableACSCheck set TRUE on the ESX host (VM-001, S1 "Sanity check on the ACS related settings");
- passthru.map still has the original NVIDIA reset method "bridge" (VM-002, S1 "Change GPU's reset type to flr");
- the VM's 64bitMMIOSizeGB is 512, below 128 x 8 + 32 = 1056 (VM-003, S1 "VM advanced settings").
"""

from __future__ import annotations

from pytest_gpufabric.commands import sh
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

MISCONFIGURED_HOST = {"node06"}
DESCRIPTIONS = {
    "disableACSCheck": ("FALSE", "TRUE", "Bypass ACS capability checks on all PCIE devices"),
    "atsSupport": ("TRUE", "TRUE", "Enable Support for PCIe ATS."),
    "enableACSDTP2P": ("TRUE", "TRUE", "Enable ACS Direct Translated P2P."),
}


def build(node: DemoNode) -> Outputs:
    if not node.vmware:
        return {}
    bad = node.name in MISCONFIGURED_HOST
    ssh = ("ssh", "-o", "BatchMode=yes", f"root@{node.esx_host}")
    outputs: Outputs = {}
    for name, (good, wrong, text) in DESCRIPTIONS.items():
        value = wrong if bad else good
        outputs[sh(*ssh, "esxcli", "system", "settings", "kernel", "list", "-o", name)] = (
            _esxcli_table(("Name", "Type", "Configured", "Runtime", "Default", "Description"),
                          (name, "Bool", value, value, good, text)), 0)
    outputs[sh(*ssh, "cat", "/etc/vmware/passthru.map")] = (
        "# NVIDIA (FLR issue on Ampere and Hopper GPUs)\n" + ("10de ffff bridge false\n" if bad else "10de ffff flr false\n"), 0)
    vmx = f"/vmfs/volumes/*/{node.name}/{node.name}.vmx"
    outputs[sh(*ssh, "sh", "-c", f"grep -h -i pciPassthru {vmx}")] = (
        'pciPassthru.allowP2P = "TRUE"\npciPassthru.relaxACSforP2P = "TRUE"\npciPassthru.use64bitMMIO = "TRUE"\n'
        f'pciPassthru.64bitMMIOSizeGB = "{512 if bad else 1056}"\n', 0)
    return outputs


def _esxcli_table(names: tuple[str, ...], values: tuple[str, ...]) -> str:
    """One row as esxcli prints it: each column as wide as its widest cell, dashes under each name, two spaces
    between columns."""
    widths = [max(len(name), len(value)) for name, value in zip(names, values)]
    lines = (names, tuple("-" * width for width in widths), values)
    return "".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() + "\n" for line in lines)
