"""Reads one node, read-only, through any transport: GPUs, backend NICs, routing, PCIe paths, platform.

Every command is one the acceptance suite runs as well (so a recording serves both), except the DMI and CPU-flag
fallbacks of the virtualization, and every output goes through the project's parsers. A tool that does not
answer (not installed, no RDMA subsystem) is noted and the rest of the node is still read. An output that cannot
be read costs only its facet (LLDP, RDMA links, addresses, routing, one NIC's link speed...): the node is written
with the gap commented. Only the GPU listing, which the node's identity needs, fails the node when unreadable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from ipaddress import IPv4Address, IPv4Interface

from pytest_gpufabric.commands import sh
from pytest_gpufabric.discovery.gpu_link import read_gpu_link
from pytest_gpufabric.discovery.node_reader import Gap, NodeReader
from pytest_gpufabric.discovery.virtualization import Virtualization, detect_virtualization
from pytest_gpufabric.parsers.ethtool import parse_ethtool, parse_ethtool_driver
from pytest_gpufabric.parsers.ip import Rule, parse_ip_addr, parse_ip_route, parse_ip_rule
from pytest_gpufabric.parsers.lldp import LldpNeighbor, parse_lldpctl_keyvalue
from pytest_gpufabric.parsers.lspci import parse_lspci
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_query, parse_nvidia_smi_topo
from pytest_gpufabric.parsers.pci_path import PciDevicePath
from pytest_gpufabric.parsers.rdma import parse_rdma_link
from pytest_gpufabric.parsers.rocm_smi import parse_rocm_smi_showbus
from pytest_gpufabric.parsers.topology import TopologyMatrix
from pytest_gpufabric.transport.base import Transport

RDMA_LINKS = "rdma link show"
IPV4_ADDRESSES = "ip -o -4 addr show"
IP_RULES = "ip rule show"
AMD_GPUS = "rocm-smi --showbus"
NVIDIA_GPUS = "nvidia-smi --query-gpu=index,pci.bus_id,name --format=csv"
LSPCI = "lspci -vvv"
LLDP_NEIGHBORS = "lldpctl -f keyvalue"
NVIDIA_TOPOLOGY = "nvidia-smi topo -m"
RESERVED_TABLES = frozenset({"main", "local", "default", "253", "254", "255"})
BROADCOM_DRIVERS = frozenset({"bnxt_en", "bnxt_re"})
GPU_MODEL = re.compile(r"^(MI\d+[A-Z]*|[A-Z]{1,2}\d{2,3}[A-Z]*)$")
# The facets a node is read by; an output of one that cannot be read leaves that facet's gap.
ADDRESSES, RULES, LLDP, RDMA, ROUTES, DRIVER, LINK, MODEL, MATRIX = (
    "IPv4 addresses", "routing rules", "LLDP", "RDMA links", "routing table", "NIC driver", "link speed", "GPU model",
    "GPU/NIC matrix")


def route_table_command(table: int) -> str:
    return sh("ip", "route", "list", "table", table)


@dataclass(frozen=True)
class FoundGpu:
    index: int
    pci: str
    path: PciDevicePath | None


@dataclass(frozen=True)
class FoundNic:
    """A backend NIC as read: ``rdma`` tells whether an RDMA device names it (else its interface does)."""

    name: str
    netdev: str
    rdma: bool
    addresses: tuple[IPv4Interface, ...]
    pci: str | None
    path: PciDevicePath | None
    speed_gbps: int | None
    driver: str | None
    route_table: int | None = None
    gateway: IPv4Address | None = None
    neighbor: LldpNeighbor | None = None  # what LLDP says is at the other end of the cable
    gaps: tuple[Gap, ...] = ()  # this NIC's facets that could not be read (driver, link speed, routing table)

    def gap(self, facet: str) -> Gap | None:
        return next((gap for gap in self.gaps if gap.facet == facet), None)


@dataclass(frozen=True)
class FoundPlatform:
    gpu_vendor: str  # amd, nvidia, none
    gpu_model: str
    nic_vendor: str  # broadcom, other
    virtualization: str  # systemd-detect-virt's words (none, vmware, kvm, ..., vm-other); "unknown" when nothing told
    virtualization_steps: tuple[str, ...] = ()  # what each step of the virtualization reading said
    gpu_link: str | None = None  # nvswitch, nvlink, xgmi, pcie; None: one GPU, or not read


@dataclass(frozen=True)
class NodeFacts:
    """What discovery read on one node; ``notes`` are the commands that did not answer, ``gaps`` the node's
    facets whose output could not be read (NIC facets are on the NIC), for the file and the summary."""

    name: str
    address: str
    platform: FoundPlatform
    gpus: tuple[FoundGpu, ...]
    nics: tuple[FoundNic, ...]
    notes: tuple[str, ...] = ()
    lldp_answered: bool = False
    gaps: tuple[Gap, ...] = ()
    topology: TopologyMatrix | None = None  # nvidia-smi topo -m (NVIDIA nodes with NICs): the pairing's cross-check

    def gap(self, facet: str) -> Gap | None:
        return next((gap for gap in self.gaps if gap.facet == facet), None)


def gpu_model_from(text: str) -> str | None:
    """``MI300X`` from ``... [Instinct MI300X]``, ``H100`` from ``NVIDIA H100 80GB HBM3`` or ``GH100 [H100 SXM5]``."""
    bracketed = re.findall(r"\[([^\]]+)\]", text)
    for candidate in [*reversed(bracketed), text]:
        for word in re.split(r"[\s,/]+", candidate):
            if GPU_MODEL.match(word):
                return word
    return None


def _source_tables(rules: tuple[Rule, ...]) -> dict[IPv4Address, int]:
    """Numeric routing table of each ``from <address>`` rule (S0 2.4.1: one table per backend NIC)."""
    tables: dict[IPv4Address, int] = {}
    for rule in rules:
        network = rule.source_network
        if network is None or network.prefixlen != 32 or rule.table in RESERVED_TABLES or not rule.table.isdigit():
            continue
        tables.setdefault(network.network_address, int(rule.table))
    return tables


def _lldp_neighbors(text: str) -> dict[str, LldpNeighbor]:
    """lldpctl exits 0 and prints nothing when no neighbor is seen."""
    return parse_lldpctl_keyvalue(text) if text.strip() else {}


def _gpus(reader: NodeReader) -> tuple[str, dict[int, str], dict[int, str]]:
    """GPU vendor, index -> PCI address, index -> model text (from rocm-smi, else nvidia-smi)."""
    amd = reader.answer(AMD_GPUS, parse_rocm_smi_showbus)
    if amd:
        return "amd", dict(amd), {}
    noted = len(reader.notes)
    rows = reader.answer(NVIDIA_GPUS, parse_nvidia_smi_query) or ()
    buses = {row.index: row.bus_id for row in rows if row.index is not None and row.bus_id is not None}
    names = {row.index: row.values.get("name", "") for row in rows if row.index is not None}
    if not buses:
        return "none", {}, {}
    del reader.notes[noted - 1 : noted]  # rocm-smi is absent on an NVIDIA node: nothing to report
    return "nvidia", buses, names  # type: ignore[return-value]


def _amd_model(reader: NodeReader, buses: dict[int, str]) -> str | None:
    report = reader.answer(LSPCI, parse_lspci, facet=MODEL)
    functions = [] if report is None else [report.get(bdf) for bdf in buses.values()]
    models = [gpu_model_from(function.description) for function in functions if function is not None]
    return next((model for model in models if model), None)


def _candidates(reader: NodeReader, tables: dict[IPv4Address, int], addresses: dict[str, tuple[IPv4Interface, ...]]) -> list[tuple[str, str, bool]]:
    """(name, netdev, rdma) of the backend NICs: RDMA devices with a netdev; without any, the interfaces
    whose address has a source-routing table of its own (S0 2.4.1), named after the interface."""
    links = reader.answer(RDMA_LINKS, parse_rdma_link, facet=RDMA)
    found: dict[str, tuple[str, str, bool]] = {}
    for link in () if links is None else links.links:
        if link.netdev and link.device not in found:
            found[link.device] = (link.device, link.netdev, True)
    if found:
        return list(found.values())
    routed = set(tables)
    return [(netdev, netdev, False) for netdev, addrs in addresses.items() if any(a.ip in routed for a in addrs)]


def _nic(reader: NodeReader, name: str, netdev: str, rdma: bool, addrs: tuple[IPv4Interface, ...], tables: dict[IPv4Address, int]) -> FoundNic:
    """One NIC's facts; its facets that cannot be read are its own gaps (the node's reader keeps none of them)."""
    own = NodeReader(reader.transport, reader.node, reader.timeout_s, reader.notes)
    info = own.answer(sh("ethtool", "-i", netdev), parse_ethtool_driver, facet=DRIVER)
    settings = own.answer(sh("ethtool", netdev), parse_ethtool, facet=LINK)
    bus = None if info is None or info.bus_info is None or ":" not in info.bus_info else info.bus_info
    table = next((tables[a.ip] for a in addrs if a.ip in tables), None)
    gateway = None
    if table is not None:
        routes = own.answer(route_table_command(table), parse_ip_route, facet=ROUTES) or ()
        gateway = next((route.gateway_address for route in routes if route.is_default and route.gateway), None)
    speed = None if settings is None or settings.speed_mbps is None else settings.speed_mbps // 1000
    path = own.pci_path(bus)
    return FoundNic(
        name=name, netdev=netdev, rdma=rdma, addresses=addrs, pci=bus, path=path,
        speed_gbps=speed or None, driver=None if info is None else info.driver, route_table=table, gateway=gateway,
        gaps=tuple(own.gaps),
    )  # fmt: skip


def probe_node(transport: Transport, name: str, address: str, timeout_s: float = 60.0, *, lldp: bool = True) -> NodeFacts:
    """Everything discovery needs from one node; raises TransportError when the node cannot be reached and
    ParseError when its GPU listing cannot be read (every other facet degrades alone: see the module
    docstring). ``lldp=False`` does not ask lldpctl (switch and port are then left to the user)."""
    reader = NodeReader(transport, name, timeout_s)
    vendor, buses, names = _gpus(reader)
    addresses = reader.answer(IPV4_ADDRESSES, parse_ip_addr, facet=ADDRESSES)
    by_netdev = {} if addresses is None else {entry.name: entry.ipv4 for entry in addresses.interfaces}
    tables = _source_tables(reader.answer(IP_RULES, parse_ip_rule, facet=RULES) or ())
    neighbors = reader.answer(LLDP_NEIGHBORS, _lldp_neighbors, facet=LLDP) if lldp else None
    nics = tuple(
        replace(_nic(reader, nic_name, netdev, rdma, by_netdev.get(netdev, ()), tables),
                neighbor=None if neighbors is None else neighbors.get(netdev))
        for nic_name, netdev, rdma in _candidates(reader, tables, by_netdev)
    )  # fmt: skip
    gpus = tuple(FoundGpu(index, bdf, reader.pci_path(bdf)) for index, bdf in sorted(buses.items()))
    topology = reader.answer(NVIDIA_TOPOLOGY, parse_nvidia_smi_topo, facet=MATRIX) if vendor == "nvidia" and nics else None
    if vendor == "amd":
        model = _amd_model(reader, buses)
    else:
        model = next((m for m in (gpu_model_from(text) for text in names.values()) if m), None)
    virtualization: Virtualization = detect_virtualization(reader)
    drivers = {nic.driver for nic in nics if nic.driver}
    platform = FoundPlatform(
        gpu_vendor=vendor,
        gpu_model=model or "none",
        nic_vendor="broadcom" if drivers and drivers <= BROADCOM_DRIVERS else "other",
        virtualization=virtualization.word,
        virtualization_steps=virtualization.steps,
        gpu_link=read_gpu_link(reader, vendor, len(gpus)),
    )
    return NodeFacts(name, address, platform, gpus, nics, tuple(reader.notes), lldp_answered=neighbors is not None,
                     gaps=tuple(reader.gaps), topology=topology)  # fmt: skip
