"""The demo cluster's shape: 4 MI300X bare-metal nodes and 2 VMware guests on HGX H100 (S1), 8 GPUs and 8 NICs
each, NIC i adjacent to GPU i (S0 2.8.2), every NIC i on rail i."""

from __future__ import annotations

from dataclasses import dataclass

# GPU buses from S0 2.8.2 (rocm-smi --showbus); each NIC sits on the next bus below the same PCIe switch,
# as NIC0 0000:1d:00.0 next to GPU0 0000:1c:00.0 and NIC4 0000:9f:00.0 next to GPU4 0000:9e:00.0 in S0.
GPU_BUSES = (0x1C, 0x42, 0x55, 0x68, 0x9E, 0xC2, 0xD4, 0xE6)
NODE_COUNT = 4
VMWARE_NODE_COUNT = 2


@dataclass(frozen=True)
class DemoSlot:
    """One PCIe switch of a node: root port -> switch upstream port -> two downstream ports (GPU, NIC)."""

    index: int

    @property
    def gpu_bus(self) -> int:
        return GPU_BUSES[self.index]

    @property
    def nic_bus(self) -> int:
        return self.gpu_bus + 1

    @property
    def root_bus(self) -> int:
        return self.gpu_bus - 3

    def bdf(self, bus: int, dev: int = 0, fn: int = 0) -> str:
        return f"0000:{bus:02x}:{dev:02x}.{fn}"

    @property
    def root_port(self) -> str:
        return self.bdf(self.root_bus, 1, 1)

    @property
    def upstream_port(self) -> str:
        return self.bdf(self.root_bus + 1)

    @property
    def gpu_downstream_port(self) -> str:
        return self.bdf(self.root_bus + 2, 0)

    @property
    def nic_downstream_port(self) -> str:
        return self.bdf(self.root_bus + 2, 1)

    @property
    def gpu(self) -> str:
        return self.bdf(self.gpu_bus)

    @property
    def nic(self) -> str:
        return self.bdf(self.nic_bus)

    @property
    def bridges(self) -> tuple[str, ...]:
        return (self.root_port, self.upstream_port, self.gpu_downstream_port, self.nic_downstream_port)

    @property
    def netdev(self) -> str:
        """Predictable interface name of the NIC, as S0's enp29s0np0 for bus 0x1d."""
        return f"enp{self.nic_bus}s0np0"

    @property
    def rdma_device(self) -> str:
        return f"bnxt_re{self.index}"

    def sysfs_path(self, device: str) -> str:
        below = self.gpu_downstream_port if device == self.gpu else self.nic_downstream_port
        domain = f"pci0000:{self.root_bus:02x}"
        return f"/sys/devices/{domain}/{self.root_port}/{self.upstream_port}/{below}/{device}"


@dataclass(frozen=True)
class DemoNode:
    number: int  # 1-based

    @property
    def name(self) -> str:
        return f"node{self.number:02d}"

    @property
    def vmware(self) -> bool:
        """Nodes after the bare-metal ones are VMware guests on HGX H100 (S1)."""
        return self.number > NODE_COUNT

    @property
    def esx_host(self) -> str:
        return f"10.10.1.{10 + self.number}"

    @property
    def address(self) -> str:
        return f"10.10.0.{10 + self.number}"

    @property
    def slots(self) -> tuple[DemoSlot, ...]:
        return tuple(DemoSlot(i) for i in range(len(GPU_BUSES)))

    def nic_mac(self, slot: DemoSlot) -> str:
        """The NIC's MAC address (Broadcom's 7c:c2:55 prefix, as in the S0 captures), unique per node and slot."""
        return f"7c:c2:55:{self.number:02x}:{slot.index:02x}:{slot.nic_bus:02x}"

    def nic_ip(self, slot: DemoSlot) -> str:
        """S0 2.4.1: NIC r of every host in subnet 192.168.<r+1>.0/24, gateway .254, table 101+r."""
        return f"192.168.{slot.index + 1}.{self.number}"


NODES = tuple(DemoNode(n) for n in range(1, NODE_COUNT + VMWARE_NODE_COUNT + 1))
