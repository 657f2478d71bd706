"""Demo outputs of the link checks (LNK-002, 003, 004, 007): ethtool, ibv_devinfo, ibv_devices and GID samples (S0, S1, S3).

Injected faults, each a documented failure mode:
- node02 bnxt_re1: the link trained at 200000Mb/s instead of 400000Mb/s (LNK-002, S0 2.6 item 8);
- node04 bnxt_re6: RDMA active_mtu 1024, the interface MTU not yet raised when the port came up (LNK-003);
- node03 bnxt_re2: zero node GUID (LNK-004, S3);
- node01 bnxt_re4: GID index 3 is RoCE v1 (IB/RoCE v1), not RoCE v2 (LNK-007, S0 2.6 item 9).
"""

from __future__ import annotations

from pytest_gpufabric.commands import sh
from tools.demo_cluster.areas.config_host import nic_address
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

SLOW_LINK = {("node02", 1)}
SMALL_RDMA_MTU = {("node04", 6)}
ZERO_GUID = {("node03", 2)}
ROCE_V1_GID = {("node01", 4)}


def _ethtool(netdev: str, speed: int) -> str:
    return (f"Settings for {netdev}:\n\tSupported ports: [ FIBRE ]\n\tSpeed: {speed}Mb/s\n\tLanes: 4\n\tDuplex: Full\n"
            "\tAuto-negotiation: off\n\tPort: Direct Attach Copper\n\tLink detected: yes\n")


def build(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    guids = "    device          \t   node GUID\n    ------          \t----------------\n"
    for s in node.slots:
        key = (node.name, s.index)
        outputs[sh("ethtool", s.netdev)] = (_ethtool(s.netdev, 200000 if key in SLOW_LINK else 400000), 0)
        mtu = "1024 (3)" if key in SMALL_RDMA_MTU else "4096 (5)"
        outputs[sh("ibv_devinfo", "-d", s.rdma_device)] = (
            f"hca_id:\t{s.rdma_device}\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t234.0.145.0\n\tvendor_id:\t\t\t0x14e4\n"
            f"\tvendor_part_id:\t\t\t5984\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
            f"\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t{mtu}\n\t\t\tlink_layer:\t\tEthernet\n\n", 0)
        guid = "0000000000000000" if key in ZERO_GUID else f"7ec255fffe{node.number:02x}{s.index:02x}{s.nic_bus:02x}"
        guids += f"    {s.rdma_device:<16}\t{guid}\n"
        ip = nic_address(node, s).split("/")[0]
        octets = [int(part) for part in ip.split(".")]
        gid = f"0000:0000:0000:0000:0000:ffff:{octets[0]:02x}{octets[1]:02x}:{octets[2]:02x}{octets[3]:02x}"
        base = f"/sys/class/infiniband/{s.rdma_device}/ports/1"
        outputs[sh("cat", f"{base}/gids/3")] = (gid + "\n", 0)
        outputs[sh("cat", f"{base}/gid_attrs/types/3")] = ("IB/RoCE v1\n" if key in ROCE_V1_GID else "RoCE v2\n", 0)
    outputs["ibv_devices"] = (guids, 0)
    return outputs
