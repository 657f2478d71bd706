"""From the facts of every node to the inventory model of the site, with a comment for every guess and a
finding for every node that disagrees with the majority. Pure: no machine is touched here."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from ipaddress import IPv4Network

from pytest_gpufabric.discovery.cabling import Cabling
from pytest_gpufabric.discovery.matrix_check import cross_check
from pytest_gpufabric.discovery.pairing import pair_nic
from pytest_gpufabric.discovery.probe import LINK, RDMA, RULES, FoundNic, NodeFacts
from pytest_gpufabric.discovery.virtualization import BARE_METAL, UNKNOWN, Virtualization
from pytest_gpufabric.discovery.profiles import best_profile
from pytest_gpufabric.discovery.rails import minority_subnets, rail_numbers
from pytest_gpufabric.discovery.targets import fold
from pytest_gpufabric.inventory.model import Gpu, Nic, Node, Platform, SshConfig, Switch
from pytest_gpufabric.inventory.placeholders import placeholder_pci

CommentKey = tuple[str, ...]  # (node,), (node, field), (node, nic, field)


@dataclass(frozen=True)
class Declared:
    """What the command line declares: it wins over what discovery finds, and the file says so."""

    site: str
    transport: str
    ssh: SshConfig
    profile: str | None = None
    platform: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Finding:
    """A node that disagrees with the majority (or could not be paired): one line of the summary."""

    node: str
    message: str


@dataclass
class DiscoveredSite:
    site: str
    transport: str
    ssh: SshConfig
    profile: str
    platform: Platform
    nodes: tuple[Node, ...]
    switches: tuple[Switch, ...]
    comments: dict[CommentKey, str]
    findings: list[Finding]


def deployment_of(virtualization: str) -> str:
    """The inventory's deployment for a virtualization word: VMware, another hypervisor's guest, or bare metal
    (also when nothing told: the file then asks for a review)."""
    if virtualization == "vmware":
        return "vmware"
    return "baremetal" if virtualization in (BARE_METAL, UNKNOWN) else "guest"


def node_platform(facts: NodeFacts, declared: Mapping[str, str]) -> Platform:
    """The inventory platform of a node: what was found, with the declared values over it."""
    found = {
        "gpu_vendor": facts.platform.gpu_vendor,
        "gpu_model": facts.platform.gpu_model,
        "nic_vendor": facts.platform.nic_vendor,
        "deployment": deployment_of(facts.platform.virtualization),
        **({"gpu_link": facts.platform.gpu_link} if facts.platform.gpu_link else {}),
    }
    return Platform(**{**found, **declared})  # type: ignore[arg-type]


def _majority(values: Sequence[object]) -> object:
    """The most common value; ties go to the value seen first."""
    return Counter(values).most_common(1)[0][0]


def _nic_subnet(nic: FoundNic) -> IPv4Network | None:
    return nic.addresses[0].network if nic.addresses else None


class _Assembler:
    def __init__(self, facts: Sequence[NodeFacts], declared: Declared, installed: Collection[str]) -> None:
        self.facts = facts
        self.declared = declared
        self.installed = installed
        self.comments: dict[CommentKey, str] = {}
        self.findings: list[Finding] = []
        self.cabling = Cabling(declared.ssh)
        subnets = {f.name: [s for nic in f.nics if (s := _nic_subnet(nic)) is not None] for f in facts}
        self.rails = rail_numbers(subnets)
        for node, rare in minority_subnets(subnets).items():
            listed = ", ".join(map(str, rare))
            self.findings.append(Finding(node, f"NIC subnet used by a minority of the nodes: {listed}"))

    def site(self) -> DiscoveredSite:
        platforms = [node_platform(f, self.declared.platform) for f in self.facts]
        platform: Platform = _majority(platforms)  # type: ignore[assignment]
        profile = self._profile(platform)
        self._count_findings("GPUs", [len(f.gpus) for f in self.facts])
        self._count_findings("NICs", [len(f.nics) for f in self.facts])
        self._name_findings()
        nodes = tuple(self._node(f, p, platform, profile) for f, p in zip(self.facts, platforms))
        self.findings += [Finding(node, message) for node, message in self.cabling.conflicts]
        switches = tuple(self.cabling.switches[name] for name in sorted(self.cabling.switches))
        return DiscoveredSite(
            self.declared.site, self.declared.transport, self.declared.ssh, profile, platform, nodes, switches,
            self.comments, self.findings,
        )  # fmt: skip

    def _profile(self, platform: Platform) -> str:
        if self.declared.profile:
            self.comments[("profile",)] = "declared on the command line"
            return self.declared.profile
        choice = best_profile(platform, self.installed)
        if choice.profile is None:
            self.comments[("profile",)] = f"REVIEW: {choice.reason}; set the profile by hand"
            return "REVIEW-ME"
        self.comments[("profile",)] = f"best match for the majority platform: {choice.reason}"
        return choice.profile

    def _count_findings(self, what: str, counts: list[int]) -> None:
        usual = _majority(counts)
        for facts, count in zip(self.facts, counts):
            if count != usual:
                self.findings.append(Finding(facts.name, f"{count} {what} (most nodes have {usual})"))

    def _name_findings(self) -> None:
        names = [frozenset(nic.name for nic in f.nics) for f in self.facts]
        usual = _majority(names)
        for facts, own in zip(self.facts, names):
            if own != usual and own - usual:
                self.findings.append(Finding(facts.name, f"NIC names differ from most nodes: {fold(own - usual)}"))

    def _node(self, facts: NodeFacts, platform: Platform, site_platform: Platform, site_profile: str) -> Node:
        own_profile = None
        if platform != site_platform:
            self.findings.append(Finding(facts.name, f"platform differs from most nodes: {_describe(platform)}"))
            choice = best_profile(platform, self.installed)
            if choice.profile is not None and choice.profile != site_profile:
                own_profile = choice.profile
                self.comments[(facts.name, "profile")] = f"this node's platform: {choice.reason}"
        lines = _deployment_lines(facts, self.declared.platform)
        if facts.gaps:
            lines += ["could not be read (the rest of the node was):", *(f"  {gap.describe()}" for gap in facts.gaps)]
            if facts.gap(RDMA):
                lines.append("  NICs found from the interfaces with a source-routing table instead of rdma link")
        if facts.notes:
            lines += ["not read:", *(f"  {note}" for note in facts.notes)]
        if lines:
            self.comments[(facts.name,)] = "\n".join(lines)
        gpus = tuple(Gpu(gpu.index, gpu.pci) for gpu in facts.gpus)
        paths = {gpu.index: gpu.path for gpu in facts.gpus if gpu.path is not None}
        usable = [nic for nic in facts.nics if self._usable(facts.name, nic)]
        self._shared_subnets(facts.name, usable)
        ordered = sorted(usable, key=lambda nic: (self.rails[_nic_subnet(nic)], nic.name))  # type: ignore[index]
        nics = tuple(self._nic(facts, nic, position, paths) for position, nic in enumerate(ordered, start=1))
        return Node(
            name=facts.name, address=facts.address, ssh=self.declared.ssh,
            platform=platform, gpus=gpus, nics=nics, profile=own_profile,
        )  # fmt: skip

    def _shared_subnets(self, node: str, nics: Sequence[FoundNic]) -> None:
        by_subnet: dict[IPv4Network, list[str]] = {}
        for nic in nics:
            by_subnet.setdefault(nic.addresses[0].network, []).append(nic.name)
        for subnet, names in by_subnet.items():
            if len(names) > 1:
                self.findings.append(Finding(node, f"{' and '.join(names)} share the subnet {subnet} (one rail)"))

    def _usable(self, node: str, nic: FoundNic) -> bool:
        unreadable = nic.gap(LINK)
        missing = (
            "no IPv4 address" if not nic.addresses
            else f"no link speed ({unreadable.describe()})" if nic.speed_gbps is None and unreadable
            else "no link speed (link down?)" if nic.speed_gbps is None
            else ""
        )  # fmt: skip
        if missing:
            self.findings.append(Finding(node, f"{nic.name} ({nic.netdev}) not written: {missing}"))
            self.comments[(node, "skipped", nic.name)] = f"{nic.name} ({nic.netdev}) not written: {missing}"
        return not missing

    def _nic(self, facts: NodeFacts, nic: FoundNic, position: int, gpu_paths: Mapping[int, object]) -> Nic:
        node = facts.name
        key = (node, nic.name)
        cable = self.cabling.cable(facts, nic)
        self.comments[(*key, "switch" if cable.switch is None else "switch_port")] = cable.comment
        pairing = pair_nic(nic.path, gpu_paths)  # type: ignore[arg-type]
        matrix = cross_check(facts.topology, nic.name, pairing.gpu)
        if gpu_paths or nic.path is not None:
            self.comments[(*key, "gpu")] = pairing.reason if matrix is None else f"{pairing.reason}; {matrix[0]}"
            if pairing.gpu is None and gpu_paths:
                self.findings.append(Finding(node, f"{nic.name} {pairing.reason}"))
        if matrix is not None and matrix[1]:
            self.findings.append(Finding(node, f"{nic.name} paired with GPU {pairing.gpu} by the PCIe tree; {matrix[0]}"))
        pci = nic.pci
        if pci is None:
            pci = placeholder_pci(position)
            self.comments[(*key, "pci")] = "placeholder: the interface has no PCIe device"
        if len(nic.addresses) > 1:
            others = ", ".join(map(str, nic.addresses[1:]))
            self.comments[(*key, "ipv4")] = f"first of its addresses (also: {others})"
        if not nic.rdma:
            self.comments[(*key, "name")] = "no RDMA device: named after its interface"
        unreadable = facts.gap(RULES)
        if nic.route_table is None:
            self.comments[(*key, "route_table")] = (
                f"not known: {unreadable.describe()}" if unreadable else "no source-routing rule for its address"
            )
        elif nic.gateway is None and nic.gaps:
            self.comments[(*key, "gateway")] = "; ".join(gap.describe() for gap in nic.gaps)
        elif nic.gateway is None:
            self.comments[(*key, "gateway")] = f"no default route in table {nic.route_table}"
            self.findings.append(Finding(node, f"{nic.name}: no default route in its table {nic.route_table}"))
        return Nic(
            name=nic.name, netdev=nic.netdev, ipv4=nic.addresses[0], pci=pci, speed_gbps=nic.speed_gbps,  # type: ignore[arg-type]
            rail=self.rails[nic.addresses[0].network], gpu=pairing.gpu, gateway=nic.gateway, route_table=nic.route_table,
            switch=cable.switch, switch_port=cable.port,
        )  # fmt: skip


def _deployment_lines(facts: NodeFacts, declared: Mapping[str, str]) -> list[str]:
    """How a guest's deployment, or one that systemd-detect-virt did not tell, was told (each step); a REVIEW
    line when nothing told it. Silent where systemd-detect-virt said bare metal or VMware."""
    if "deployment" in declared:
        return []
    virt = Virtualization(facts.platform.virtualization, facts.platform.virtualization_steps)
    if virt.word == UNKNOWN:
        return [f"REVIEW deployment: written as baremetal, the deployment was {virt.describe()}"]
    if virt.guest and virt.word != "vmware":
        return [f"deployment guest: {virt.describe()}"]
    if len(virt.steps) > 1:
        return [f"deployment {deployment_of(virt.word)}: {virt.describe()}"]
    return []


def _describe(platform: Platform) -> str:
    return f"{platform.gpu_vendor} {platform.gpu_model}, {platform.nic_vendor} NICs, {platform.deployment}"


def assemble_site(facts: Sequence[NodeFacts], declared: Declared, installed_profiles: Collection[str]) -> DiscoveredSite:
    """The site the facts describe, in node order; raises nothing for odd nodes, it records findings."""
    return _Assembler(facts, declared, installed_profiles).site()

