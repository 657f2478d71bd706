"""The validated cluster inventory: immutable, hashable, picklable records in the order of site.yaml."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Interface
from typing import Literal

from pytest_gpufabric.inventory.frozen_map import FrozenMap
from pytest_gpufabric.signoff.deviations import Deviation

GpuVendor = Literal["amd", "nvidia", "none"]
NicVendor = Literal["broadcom", "other"]
Deployment = Literal["baremetal", "vmware", "guest"]
SwitchOs = Literal["arista", "sonic", "juniper"]
Transport = Literal["ssh", "local"]

GPU_VENDORS: tuple[str, ...] = ("amd", "nvidia", "none")
NIC_VENDORS: tuple[str, ...] = ("broadcom", "other")
# guest: a virtual machine of another hypervisor than VMware ESXi (KVM, QEMU, Hyper-V, Xen, a cloud instance); its
# host is not the site's to check, and each node check says what it means there (catalog `guest`).
DEPLOYMENTS: tuple[str, ...] = ("baremetal", "vmware", "guest")
SWITCH_OSES: tuple[str, ...] = ("arista", "sonic", "juniper")
TRANSPORTS: tuple[str, ...] = ("ssh", "local")

ThresholdScalar = bool | int | float | str
ThresholdValue = ThresholdScalar | tuple[ThresholdScalar, ...]
Thresholds = FrozenMap[str, FrozenMap[str, ThresholdValue]]


@dataclass(frozen=True)
class SshConfig:
    """How to reach a machine over SSH. `~` in `key` and `known_hosts` is left for the consumer to expand."""

    user: str = "root"
    port: int = 22
    key: str | None = None
    sudo: bool = False
    known_hosts: str | None = None
    connect_timeout_s: float = 10.0
    command_timeout_s: float = 120.0


@dataclass(frozen=True)
class Platform:
    """What a node is made of; selects which checks apply to it."""

    gpu_vendor: GpuVendor
    gpu_model: str
    nic_vendor: NicVendor
    deployment: Deployment
    gpu_link: str | None = None  # how the GPUs reach each other: nvswitch, nvlink, xgmi or pcie (None: not declared)


@dataclass(frozen=True)
class Gpu:
    """A GPU of a node: its index (as the vendor tools number it) and PCIe address (lower case)."""

    index: int
    pci: str


@dataclass(frozen=True)
class Nic:
    """A RoCE NIC of a node: RDMA device, Linux interface, address, and where it is cabled."""

    name: str
    netdev: str
    ipv4: IPv4Interface
    pci: str
    speed_gbps: int
    rail: int
    gpu: int | None = None
    gateway: IPv4Address | None = None
    route_table: int | None = None
    switch: str | None = None
    switch_port: str | None = None

    @property
    def address(self) -> IPv4Address:
        """The NIC's own IPv4 address, without the prefix."""
        return self.ipv4.ip


@dataclass(frozen=True)
class Node:
    """A GPU server (or VM) under test."""

    name: str
    address: str
    ssh: SshConfig
    platform: Platform
    esx_host: str | None = None
    gpus: tuple[Gpu, ...] = ()
    nics: tuple[Nic, ...] = ()
    profile: str | None = None  # the node's own thresholds profile; None: the site's

    def gpu(self, index: int) -> Gpu:
        """The GPU with this index; KeyError if the node has none."""
        for gpu in self.gpus:
            if gpu.index == index:
                return gpu
        raise KeyError(f"{self.name} has no GPU {index}")

    def nic(self, name: str) -> Nic:
        """The NIC with this RDMA device name; KeyError if the node has none."""
        for nic in self.nics:
            if nic.name == name:
                return nic
        raise KeyError(f"{self.name} has no NIC {name!r}")

    @property
    def platform_tags(self) -> frozenset[str]:
        """Tags matched against a check's `applies` (GPU vendor, NIC vendor, deployment); `none`/`other` add nothing."""
        tags = {self.platform.deployment}
        if self.platform.gpu_vendor != "none":
            tags.add(self.platform.gpu_vendor)
        if self.platform.nic_vendor != "other":
            tags.add(self.platform.nic_vendor)
        return frozenset(tags)


@dataclass(frozen=True)
class Switch:
    """A leaf switch the NICs are cabled to."""

    name: str
    os: SwitchOs
    address: str
    ssh: SshConfig

    @property
    def platform_tags(self) -> frozenset[str]:
        """Tags matched against a check's `applies`: the switch OS."""
        return frozenset({self.os})


@dataclass(frozen=True)
class SiteTestPlan:
    """The site's test plan (``test_plan:``): the document it implements, the node pairs the pair checks must
    cover (a policy given only on the command line is a selection), and who signs the report."""

    reference: str | None = None
    pair_policy: str = "all"
    sign_off: tuple[tuple[str, str], ...] = ()  # (role, name), in file order


@dataclass(frozen=True)
class Inventory:
    """The whole site: nodes and switches in file order, the threshold profile and site overrides."""

    version: int
    site: str
    profile: str
    transport: Transport
    thresholds: Thresholds
    scrub_patterns: tuple[str, ...]
    nodes: tuple[Node, ...]
    switches: tuple[Switch, ...]
    test_plan: SiteTestPlan = SiteTestPlan()
    deviations: tuple[Deviation, ...] = ()

    def node(self, name: str) -> Node:
        """The node with this name; KeyError if there is none."""
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(f"no node named {name!r} in site {self.site}")

    def machine(self, name: str) -> Node | Switch:
        """The node or switch with this name; KeyError if there is none."""
        for machine in (*self.nodes, *self.switches):
            if machine.name == name:
                return machine
        raise KeyError(f"no node or switch named {name!r} in site {self.site}")

    def switch(self, name: str) -> Switch:
        """The switch with this name; KeyError if there is none."""
        for switch in self.switches:
            if switch.name == name:
                return switch
        raise KeyError(f"no switch named {name!r} in site {self.site}")
