"""Demo outputs of the first checks (HOST-001, HOST-002, PCI-001, LNK-005), from the sample outputs of S0.

Injected faults, each a documented failure mode:
- node02: iommu=pt missing from the kernel command line (HOST-001);
- node03: NUMA balancing left on (HOST-002);
- node02, slot 3: ACS re-enabled on the NIC's PCIe switch ports, e.g. after a BIOS update (PCI-001);
- node04, slot 5: the netplan file lacks mtu 9000 (LNK-005);
- node03, slot 6: the NIC's link trained at x8 (downgraded), e.g. a badly seated riser (PCI-002, S0 App. D);
- node04, slot 2: the GPU's link trained at 16GT/s (downgraded) (PCI-003, S0 App. D.2);
- node03, slot 1: the NIC is cabled to a root port of its own, not to its GPU's PCIe switch (PCI-004, S0 1.3).
"""

from __future__ import annotations

from pytest_gpufabric.commands import sh
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode, DemoSlot

IOMMU_TRANSLATED = {"node02"}
NUMA_BALANCING_ON = {"node03"}
ACS_ENABLED = {("node02", 3)}
MTU_1500 = {("node04", 5)}
NIC_X8 = {("node03", 6)}
GPU_GEN4 = {("node04", 2)}
NIC_ON_ROOT_PORT = {("node03", 1)}

# S0 2.3.1, sample kernel command line of an AMD host with the IOMMU in pass-through mode.
CMDLINE_PT = (
    "BOOT_IMAGE=/boot/vmlinuz-5.15.0-102-generic root=UUID=8d0ffb16-6f01-44c2-8e16-18bb37d87392 ro "
    "pci=realloc=off amd_iommu=on iommu=pt\n"
)
CMDLINE_TRANSLATED = CMDLINE_PT.replace(" iommu=pt", "")

ACS_ON = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"
ACS_OFF = "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
ACS_CAP = "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+"


def host_outputs(node: DemoNode) -> Outputs:
    cmdline = CMDLINE_TRANSLATED if node.name in IOMMU_TRANSLATED else CMDLINE_PT
    numa = "1\n" if node.name in NUMA_BALANCING_ON else "0\n"
    return {"cat /proc/cmdline": (cmdline, 0), "cat /proc/sys/kernel/numa_balancing": (numa, 0)}


def _bridge_block(bdf: str, role: str, secondary: int, acs: str) -> str:
    short = bdf[5:]
    return (
        f"{short} PCI bridge: {role} (rev b0) (prog-if 00 [Normal decode])\n"
        "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR+ FastB2B- DisINTx+\n"
        "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-\n"
        f"\tBus: primary={int(short[:2], 16):02x}, secondary={secondary:02x}, subordinate={secondary:02x}, sec-latency=0\n"
        "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
        "\t\tLnkSta:\tSpeed 32GT/s, Width x16\n"
        "\tCapabilities: [148 v1] Access Control Services\n"
        f"\t\tACSCap:\t{ACS_CAP}\n"
        f"\t\tACSCtl:\t{acs}\n"
        "\tKernel driver in use: pcieport\n"
    )


def _endpoint_block(bdf: str, kind: str, driver: str, speed: str = "Speed 32GT/s, Width x16") -> str:
    return (
        f"{bdf[5:]} {kind}\n"
        "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx+\n"
        "\tCapabilities: [70] Express (v2) Endpoint, MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
        f"\t\tLnkSta:\t{speed}\n"
        f"\tKernel driver in use: {driver}\n"
    )


def _slot_lspci(node: DemoNode, slot: DemoSlot, acs_on: bool) -> list[str]:
    key = (node.name, slot.index)
    gpu_link = "Speed 16GT/s (downgraded), Width x16" if key in GPU_GEN4 else "Speed 32GT/s, Width x16"
    nic_link = "Speed 32GT/s, Width x8 (downgraded)" if key in NIC_X8 else "Speed 32GT/s, Width x16"
    switch = "Broadcom / LSI PEX890xx PCIe Gen 5 Switch"
    acs_nic = ACS_ON if acs_on else ACS_OFF
    return [
        _bridge_block(slot.root_port, "Advanced Micro Devices, Inc. [AMD] Device 14ab", slot.root_bus + 1, ACS_OFF),
        _bridge_block(slot.upstream_port, switch, slot.root_bus + 2, acs_nic if acs_on else ACS_OFF),
        _bridge_block(slot.gpu_downstream_port, switch, slot.gpu_bus, ACS_OFF),
        _bridge_block(slot.nic_downstream_port, switch, slot.nic_bus, acs_nic),
        _endpoint_block(slot.gpu, "Processing accelerators: Advanced Micro Devices, Inc. [AMD/ATI] Aqua Vanjaram [Instinct MI300X]", "amdgpu", gpu_link),
        _endpoint_block(slot.nic, "Ethernet controller: Broadcom Inc. and subsidiaries BCM57608 10Gb/25Gb/50Gb/100Gb/200Gb/400Gb Ethernet (rev 11)", "bnxt_en", nic_link),
    ]


def pcie_outputs(node: DemoNode) -> Outputs:
    blocks: list[str] = []
    outputs: Outputs = {}
    for slot in node.slots:
        blocks += _slot_lspci(node, slot, (node.name, slot.index) in ACS_ENABLED)
        for device in (slot.gpu, slot.nic):
            path = slot.sysfs_path(device)
            if device == slot.nic and (node.name, slot.index) in NIC_ON_ROOT_PORT:
                path = f"/sys/devices/pci0000:{slot.root_bus:02x}/{slot.root_port}/{device}"
            outputs[sh("readlink", "-f", f"/sys/bus/pci/devices/{device}")] = (path + "\n", 0)
    blocks.sort(key=lambda block: block.split(" ", 1)[0])
    outputs["lspci -vvv"] = ("\n".join(blocks), 0)
    return outputs


def link_outputs(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    for slot in node.slots:
        mtu = 1500 if (node.name, slot.index) in MTU_1500 else 9000
        mac = node.nic_mac(slot)
        line = (
            f"{slot.index + 4}: {slot.netdev}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu {mtu} qdisc mq state UP "
            f"mode DEFAULT group default qlen 1000\\    link/ether {mac} brd ff:ff:ff:ff:ff:ff\n"
        )
        outputs[sh("ip", "-o", "link", "show", "dev", slot.netdev)] = (line, 0)
    return outputs


def build(node: DemoNode) -> Outputs:
    return {**host_outputs(node), **pcie_outputs(node), **link_outputs(node)}
