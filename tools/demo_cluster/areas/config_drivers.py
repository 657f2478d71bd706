"""Demo outputs of the driver checks (DRV-001..012), from the sample outputs of S0 and S1.

Injected faults, each a documented failure mode:
- node03: bnxt_en of an older release (232.0.155.5) left after a reimage: odd one out of the cluster (DRV-001);
- node04: bnxt_re of that older release (DRV-002);
- node02: peer memory not loaded, empty kallsyms grep (DRV-003, S0 5.1 FAQ 3); node06: nvidia_peermem not loaded;
- node01 bnxt_re2, node06 bnxt_re1: NIC firmware not updated with the release (DRV-004, odd ones out);
- node03: the inbox libbnxt_re is loaded: kernel-ABI warnings (DRV-005, S0 5.1 FAQ 6);
- node04: MLNX OFED installed beside the Broadcom stack (DRV-006, S0 5.1 FAQ 7);
- node02: amdgpu not loaded (DRV-007, S0 ch. 7);
- node04: ROCm 6.2.4, older than Table 3 (DRV-008); node06: NVIDIA driver 570.124.06, not S1's 570.133.20;
- node03: bnxt_re.conf with ROCE_BW=60 (DRV-009; the NIC then differs from the conf, QOS-002);
- node03: ibstatus not installed (DRV-010);
- node04: RDMA devices named by PCIe slot by NAME_FALLBACK (DRV-011, S0 5.1 FAQ 1);
- node01: amdgpu dkms built only for the previous kernel after a kernel update (DRV-012);
- node01 bnxt_re3: RDMA port down (LNK-001, S0 5.1 FAQ 9; rdma link show is shared with DRV-011).
"""

from __future__ import annotations

from pytest_gpufabric.commands import sh
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

OLD_BNXT_EN = {"node03"}
OLD_BNXT_RE = {"node04"}
NO_PEER_MEMORY = {"node02"}
NO_NVIDIA_PEERMEM = {"node06"}
OLD_FIRMWARE = {("node01", 2), ("node06", 1)}
INBOX_LIBBNXT_RE = {"node03"}
MLNX_OFED = {"node04"}
NO_AMDGPU = {"node02"}
OLD_ROCM = {"node04"}
OLD_NVIDIA_DRIVER = {"node06"}
CONF_ROCE_BW_60 = {"node03"}
NO_IBSTATUS = {"node03"}
SLOT_NAMES = {"node04"}
DKMS_OLD_KERNEL = {"node01"}
LINK_DOWN = {("node01", 3)}
NO_GDRDRV = {"node06"}  # GPU-006 (see config_gpu)

KERNEL = "5.15.0-143-generic"  # S1 vermagic / dkms status
PREVIOUS_KERNEL = "5.15.0-142-generic"
RELEASE, OLD_RELEASE = "234.0.154.0", "232.0.155.5"
FIRMWARE, OLD_FIRMWARE_VERSION = "234.0.145.0", "232.0.155.7"
NVIDIA_DRIVER, OLD_NVIDIA = "570.133.20", "570.124.06"

# S1 modinfo bnxt_en / bnxt_re | grep -i ver
MODINFO = {
    "bnxt_en": "filename: /lib/modules/{k}/updates/dkms/bnxt_en.ko\nversion: 1.10.3-{r}\ndescription: Broadcom NetXtreme-C/E/S network driver\nsrcversion: 2B187EDBD374C6754A04C90E\nvermagic: {k} SMP mod_unload modversions\n",
    "bnxt_re": "filename: /lib/modules/{k}/updates/dkms/bnxt_re.ko\nversion: {r}\ndescription: Broadcom NetXtreme RoCE Driver\nsrcversion: D50FE839BAA36E25869FCFB\ndepends: ib_core,ib_uverbs,bnxt_en\nvermagic: {k} SMP mod_unload modversions\n",
}
# S0 2.2 grep ib_register_peer_memory_client /proc/kallsyms
KALLSYMS = (
    "0000000000000000 r __ksymtab_ib_register_peer_memory_client     [ib_uverbs]\n"
    "0000000000000000 T ib_register_peer_memory_client       [ib_uverbs]\n"
)
# S0 5.1 FAQ 6
ABI_WARNING = "libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/{dev}\n"
# S0 5.1 FAQ 1: NAME_FALLBACK names devices by PCIe slot
SLOT_NAME = "rdmap{bus}s0"


def _lsmod(node: DemoNode) -> str:
    """S1 lsmod excerpt; the GPU modules of the node's vendor."""
    rows = [("bnxt_re", 507904, 0, ""), ("ib_uverbs", 163840, 2, "bnxt_re"), ("ib_core", 417792, 2, "bnxt_re,ib_uverbs"),
            ("bnxt_en", 3399680, 1, "bnxt_re")]
    if node.vmware:
        rows += [("nvidia", 11522048, 96, "nvidia_peermem,gdrdrv")] + ([] if node.name in NO_GDRDRV else [("gdrdrv", 24576, 0, "")])
        if node.name not in NO_NVIDIA_PEERMEM:
            rows.append(("nvidia_peermem", 16384, 0, ""))
    elif node.name not in NO_AMDGPU:
        rows.append(("amdgpu", 17264640, 8, ""))
    body = "".join(f"{name:<24}{size:>8}  {count} {users}".rstrip() + "\n" for name, size, count, users in rows)
    return "Module                  Size  Used by\n" + body


def _devinfo(node: DemoNode, verbose: bool) -> str:
    """S3 ibv_devinfo sample per device (bnxt_re, fw 234.0.145.0, PORT_ACTIVE, MTU 4096)."""
    text = "".join(ABI_WARNING.format(dev=slot.rdma_device) for slot in node.slots) if node.name in INBOX_LIBBNXT_RE and not verbose else ""
    for slot in node.slots:
        text += (
            f"hca_id:\t{slot.rdma_device}\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t{FIRMWARE}\n"
            f"\tnode_guid:\t\t\t7ec2:55ff:fe{node.number:02x}:{slot.index:02x}{slot.nic_bus:02x}\n\tvendor_id:\t\t\t0x14e4\n"
            "\tvendor_part_id:\t\t\t5984\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
            "\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t4096 (5)\n\t\t\tlink_layer:\t\tEthernet\n\n"
        )
    return text


def _dkms(node: DemoNode) -> str:
    """S1 dkms status lines; the AMD nodes carry amdgpu (S0 ch. 7)."""
    modules = [("gdrdrv", "2.5"), ("netxtreme-peer-mem", "234.0.154.08"), ("nvidia", NVIDIA_DRIVER)] if node.vmware else [("amdgpu", "6.10.5-2084815.22.04")]
    kernels = [PREVIOUS_KERNEL] if node.name in DKMS_OLD_KERNEL else [PREVIOUS_KERNEL, KERNEL]
    return "".join(f"{m}/{v}, {k}, x86_64: installed\n" for m, v in modules for k in kernels)


def build(node: DemoNode) -> Outputs:
    name = node.name
    outputs: Outputs = {"lsmod": (_lsmod(node), 0), "uname -r": (KERNEL + "\n", 0), "dkms status": (_dkms(node), 0)}
    for module, old in (("bnxt_en", OLD_BNXT_EN), ("bnxt_re", OLD_BNXT_RE)):
        outputs[sh("modinfo", module)] = (MODINFO[module].format(k=KERNEL, r=OLD_RELEASE if name in old else RELEASE), 0)
    outputs[sh("grep", "ib_register_peer_memory_client", "/proc/kallsyms")] = ("", 1) if name in NO_PEER_MEMORY else (KALLSYMS, 0)
    for slot in node.slots:
        firmware = OLD_FIRMWARE_VERSION if (name, slot.index) in OLD_FIRMWARE else FIRMWARE
        outputs[sh("ethtool", "-i", slot.netdev)] = (
            f"driver: bnxt_en\nversion: 1.10.3-{RELEASE}\nfirmware-version: {firmware}/pkg {firmware}\nexpansion-rom: \n"
            f"bus-info: {slot.nic}\nsupports-statistics: yes\nsupports-test: yes\nsupports-eeprom-access: yes\n"
            "supports-register-dump: yes\nsupports-priv-flags: no\n", 0)
    outputs["ibv_devinfo 2>&1"] = (_devinfo(node, verbose=False), 0)
    outputs["test -e /usr/sbin/ofed_uninstall.sh"] = ("", 0 if name in MLNX_OFED else 1)
    if node.vmware:
        driver = OLD_NVIDIA if name in OLD_NVIDIA_DRIVER else NVIDIA_DRIVER
        rows = "".join(f"{slot.index}, {driver}\n" for slot in node.slots)
        outputs["nvidia-smi --query-gpu=index,driver_version --format=csv"] = ("index, driver_version\n" + rows, 0)
    else:
        version = "6.2.4.60204-139~22.04" if name in OLD_ROCM else "6.3.1.60301-48~22.04"
        outputs["dpkg -l rocm-core"] = (
            "Desired=Unknown/Install/Remove/Purge/Hold\n| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend\n"
            "|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)\n||/ Name           Version               Architecture Description\n"
            "+++-==============-=====================-============-=================================\n"
            f"ii  rocm-core      {version} amd64        ROCm Runtime software stack\n", 0)
    roce_bw = 60 if name in CONF_ROCE_BW_60 else 50
    outputs["cat /etc/bnxt_re/bnxt_re.conf"] = (f"ENABLE_FC=1\nFC_MODE=3\nROCE_PRI=3\nROCE_DSCP=26\nCNP_PRI=7\nCNP_DSCP=48\nROCE_BW={roce_bw}\nUTILITY=4\n", 0)
    ibstatus = "".join(
        f"Infiniband device '{s.rdma_device}' port 1 status:\n\tdefault gid:\t fe80:0000:0000:0000:7ec2:55ff:fe{node.number:02x}:{s.index:02x}{s.nic_bus:02x}\n"
        "\tbase lid:\t 0x0\n\tsm lid:\t\t 0x0\n\tstate:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp\n\trate:\t\t 400 Gb/sec (4X)\n\tlink_layer:\t Ethernet\n\n"
        for s in node.slots)
    outputs["ibstatus"] = ("", 127) if name in NO_IBSTATUS else (ibstatus, 0)
    outputs["ibv_devinfo -vvv"] = (_devinfo(node, verbose=True), 0)
    outputs["ibdev2netdev"] = ("".join(f"{s.rdma_device} port 1 ==> {s.netdev} (Up)\n" for s in node.slots), 0)
    names = [(SLOT_NAME.format(bus=s.nic_bus) if name in SLOT_NAMES else s.rdma_device, s) for s in node.slots]
    outputs["rdma link show"] = ("".join(
        f"link {dev}/1 state {'DOWN' if (name, s.index) in LINK_DOWN else 'ACTIVE'} physical_state "
        f"{'DISABLED' if (name, s.index) in LINK_DOWN else 'LINK_UP'} netdev {s.netdev}\n" for dev, s in names), 0)
    return outputs

