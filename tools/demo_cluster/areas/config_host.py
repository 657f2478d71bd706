"""Demo outputs of the host checks (HOST-003..007) and the shared kernel log and addresses (S0 2.4, 2.6).

Injected faults, each a documented failure mode:
- node02: firewalld active (HOST-003, S0 2.6 item 13);
- node01: "Fail to setets" from bnxt_re5 in the kernel log (HOST-004, QOS-006; S0 5.1 FAQ 5);
- node04: 1 TiB of memory, below the recommended 2 TB (HOST-005, S0 2.3.3);
- node03: the rail-6 NIC configured with 192.168.6.103/24, in the subnet of rail 5, and arp_ignore/arp_announce
  left at 0 (HOST-006, S0 2.4; LNK-006 sees the wrong address);
- node04: table 103 of bnxt_re2 has no default route (HOST-007, S0 2.4.1).
"""

from __future__ import annotations

from pytest_gpufabric.commands import sh
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode, DemoSlot

FIREWALL_ON = {"node02"}
SETETS_FAILED = {("node01", 5)}
SMALL_MEMORY = {"node04"}
WRONG_SUBNET = {("node03", 6)}
NO_DEFAULT_ROUTE = {("node04", 2)}


def nic_address(node: DemoNode, slot: DemoSlot) -> str:
    """The address the node really carries (the inventory's, except the WRONG_SUBNET fault)."""
    if (node.name, slot.index) in WRONG_SUBNET:
        return f"192.168.{slot.index}.{100 + node.number}/24"
    return f"{node.nic_ip(slot)}/24"


def _dmesg(node: DemoNode) -> str:
    lines = ["[    5.120034] bnxt_en 0000:1d:00.0 (unnamed net_device) (uninitialized): Device requests max timeout of 100 seconds, may trigger hung task watchdog",
             "[   12.538271] bnxt_re: Broadcom NetXtreme-C/E RoCE Driver Version 234.0.154.0"]
    for slot in node.slots:
        if (node.name, slot.index) in SETETS_FAILED:  # S0 5.1 FAQ 5
            lines += [f"[   13.104211] infiniband {slot.rdma_device}: Fail to setets rc:-22",
                      f"[   13.104215] infiniband {slot.rdma_device}: Fail to initialize Flow control"]
    return "\n".join(lines) + "\n"


def build(node: DemoNode) -> Outputs:
    kib = (1056 if node.name in SMALL_MEMORY else 2112) * 2**20 - 12345678
    meminfo = f"MemTotal:       {kib} kB\nMemFree:        {kib - 52428800} kB\nMemAvailable:   {kib - 41943040} kB\n"
    addresses = "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n" + "".join(
        f"{s.index + 4}: {s.netdev}    inet {nic_address(node, s)} brd 192.168.{s.index + 1}.255 scope global {s.netdev}\\       valid_lft forever preferred_lft forever\n"
        for s in node.slots)
    shared = any((node.name, s.index) in WRONG_SUBNET for s in node.slots)
    arp = "0" if shared else "2", "0" if shared else "1"
    outputs: Outputs = {
        sh("systemctl", "is-active", "firewalld", "ufw"): ("active\ninactive\n" if node.name in FIREWALL_ON else "inactive\ninactive\n",
                                                          0 if node.name in FIREWALL_ON else 3),
        "dmesg": (_dmesg(node), 0),
        "cat /proc/meminfo": (meminfo, 0),
        "ip -o -4 addr show": (addresses, 0),
        sh("sysctl", "net.ipv4.conf.all.arp_ignore", "net.ipv4.conf.all.arp_announce"):
            (f"net.ipv4.conf.all.arp_ignore = {arp[0]}\nnet.ipv4.conf.all.arp_announce = {arp[1]}\n", 0),
    }
    rules = "0:\tfrom all lookup local\n" + "".join(
        f"{100 + s.index}:\tfrom {node.nic_ip(s)} lookup {101 + s.index}\n" for s in node.slots) + "32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n"
    outputs["ip rule show"] = (rules, 0)
    for s in node.slots:
        table = 101 + s.index
        default = "" if (node.name, s.index) in NO_DEFAULT_ROUTE else f"default via 192.168.{s.index + 1}.254 dev {s.netdev} proto static\n"
        outputs[sh("ip", "route", "list", "table", str(table))] = (
            default + f"192.168.{s.index + 1}.0/24 dev {s.netdev} proto kernel scope link src {node.nic_ip(s)}\n", 0)
    return outputs
