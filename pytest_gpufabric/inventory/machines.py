"""Reading of the machine sections of site.yaml: defaults, nodes (with GPUs and NICs) and switches."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface
from typing import Any, TypeVar

import yaml

from pytest_gpufabric.inventory import rules
from pytest_gpufabric.inventory.model import (
    DEPLOYMENTS,
    GPU_VENDORS,
    NIC_VENDORS,
    SWITCH_OSES,
    Gpu,
    Nic,
    Node,
    Platform,
    SshConfig,
    Switch,
)
from pytest_gpufabric.inventory.problems import ProblemLog
from pytest_gpufabric.inventory.reader import Entry, MappingView, Reader, child, item
from pytest_gpufabric.inventory.uniqueness import UniqueValues
from pytest_gpufabric.shapes import GPU_LINKS

SSH_KEYS = ("user", "port", "key", "sudo", "known_hosts", "connect_timeout_s", "command_timeout_s")
REQUIRED_PLATFORM_KEYS = ("gpu_vendor", "gpu_model", "nic_vendor", "deployment")
PLATFORM_KEYS = (*REQUIRED_PLATFORM_KEYS, "gpu_link")
DEFAULTS_KEYS = ("ssh", "platform")
NODE_KEYS = ("name", "address", "ssh", "platform", "profile", "esx_host", "gpus", "nics")
GPU_KEYS = ("index", "pci")
NIC_KEYS = (
    "name", "netdev", "ipv4", "pci", "speed_gbps", "rail",
    "gpu", "gateway", "route_table", "switch", "switch_port",
)  # fmt: skip
SWITCH_KEYS = ("name", "os", "address", "ssh")

FieldReader = Callable[[Reader, Entry], Any]
R = TypeVar("R")

_SSH_FIELDS: dict[str, FieldReader] = {
    "user": lambda r, e: r.string(e.node, e.location, rules.ssh_user),
    "port": lambda r, e: r.integer(e.node, e.location, rules.port_number),
    "key": lambda r, e: r.string(e.node, e.location, rules.file_path),
    "sudo": lambda r, e: r.boolean(e.node, e.location),
    "known_hosts": lambda r, e: r.string(e.node, e.location, rules.file_path),
    "connect_timeout_s": lambda r, e: r.number(e.node, e.location, rules.positive_number),
    "command_timeout_s": lambda r, e: r.number(e.node, e.location, rules.positive_number),
}

_PLATFORM_FIELDS: dict[str, FieldReader] = {
    "gpu_vendor": lambda r, e: r.string(e.node, e.location, rules.one_of(GPU_VENDORS)),
    "gpu_model": lambda r, e: r.string(e.node, e.location, rules.gpu_model),
    "nic_vendor": lambda r, e: r.string(e.node, e.location, rules.one_of(NIC_VENDORS)),
    "deployment": lambda r, e: r.string(e.node, e.location, rules.one_of(DEPLOYMENTS)),
    "gpu_link": lambda r, e: r.string(e.node, e.location, rules.one_of(GPU_LINKS)),
}

_PLATFORM_ALLOWED = {
    "gpu_vendor": "one of: " + ", ".join(GPU_VENDORS),
    "gpu_model": "e.g. MI300X",
    "nic_vendor": "one of: " + ", ".join(NIC_VENDORS),
    "deployment": "one of: " + ", ".join(DEPLOYMENTS),
}


@dataclass
class ClusterScope:
    """What must be unique across the cluster, and the switch references to resolve once switches are read."""

    log: ProblemLog
    known_profiles: frozenset[str] = frozenset()
    names: UniqueValues = field(init=False)
    addresses: UniqueValues = field(init=False)
    nic_addresses: UniqueValues = field(init=False)
    switch_ports: UniqueValues = field(init=False)
    switch_references: list[tuple[str, int, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.names = UniqueValues("name", self.log)
        self.addresses = UniqueValues("address", self.log)
        self.nic_addresses = UniqueValues("NIC address", self.log)
        self.switch_ports = UniqueValues("switch port", self.log)


@dataclass(frozen=True)
class Defaults:
    """The `defaults` section: values given there, merged under every node's (and switch's) own."""

    ssh: dict[str, Any]
    platform: dict[str, Any]


def _given(reader: Reader, view: MappingView, fields: dict[str, FieldReader]) -> dict[str, Any]:
    """The fields present in a mapping; a rejected value is kept as None (its problem is already logged)."""
    values: dict[str, Any] = {}
    for key, read in fields.items():
        entry = view.get(key)
        if entry is not None:
            values[key] = read(reader, entry)
    return values


def _section(
    reader: Reader, entry: Entry | None, keys: tuple[str, ...], fields: dict[str, FieldReader]
) -> dict[str, Any]:
    if entry is None:
        return {}
    view = reader.mapping(entry.node, entry.location, keys)
    return {} if view is None else _given(reader, view, fields)


def read_defaults(reader: Reader, entry: Entry | None) -> Defaults:
    view = None if entry is None else reader.mapping(entry.node, entry.location, DEFAULTS_KEYS)
    if view is None:
        return Defaults({}, {})
    return Defaults(
        ssh=_section(reader, view.get("ssh"), SSH_KEYS, _SSH_FIELDS),
        platform=_section(reader, view.get("platform"), PLATFORM_KEYS, _PLATFORM_FIELDS),
    )


def _ssh_config(defaults: Defaults, own: dict[str, Any]) -> SshConfig:
    merged = {key: value for key, value in {**defaults.ssh, **own}.items() if value is not None}
    return SshConfig(**merged)


def _platform(reader: Reader, view: MappingView, defaults: Defaults) -> Platform | None:
    own = _section(reader, view.get("platform"), PLATFORM_KEYS, _PLATFORM_FIELDS)
    merged = {**defaults.platform, **own}
    location = child(view.location, "platform")
    for key in REQUIRED_PLATFORM_KEYS:
        if key not in merged:
            reader.log.add(
                view.line,
                child(location, key),
                f"missing (set it in the node's platform or in defaults.platform; expected {_PLATFORM_ALLOWED[key]})",
            )
    if any(merged.get(key) is None for key in REQUIRED_PLATFORM_KEYS):
        return None
    return Platform(**merged)


def _required_string(reader: Reader, view: MappingView, key: str, rule: Callable[[str], R]) -> R | None:
    entry = view.require(key)
    return None if entry is None else reader.string(entry.node, entry.location, rule)  # type: ignore[return-value]


def _required_integer(reader: Reader, view: MappingView, key: str, rule: Callable[[int], int]) -> int | None:
    entry = view.require(key)
    return None if entry is None else reader.integer(entry.node, entry.location, rule)


def _optional(reader: Reader, view: MappingView, key: str, read: FieldReader) -> Any:
    entry = view.get(key)
    return None if entry is None else read(reader, entry)


def _claim(unique: UniqueValues, view: MappingView, key: str, value: object, identity: Hashable = None) -> None:
    """Claims a valid value of `key` in `unique` (under `identity` when spellings of one value differ)."""
    entry = view.get(key)
    if value is not None and entry is not None:
        unique.claim(value if identity is None else identity, str(value), entry.line, entry.location)


@dataclass
class _NodeScope:
    """What must be unique within one node."""

    log: ProblemLog
    gpu_indexes: UniqueValues = field(init=False)
    pci_addresses: UniqueValues = field(init=False)
    nic_names: UniqueValues = field(init=False)
    netdevs: UniqueValues = field(init=False)

    def __post_init__(self) -> None:
        self.gpu_indexes = UniqueValues("GPU index", self.log)
        self.pci_addresses = UniqueValues("PCIe address", self.log)
        self.nic_names = UniqueValues("NIC name", self.log)
        self.netdevs = UniqueValues("interface name", self.log)


def _list_items(reader: Reader, entry: Entry | None) -> list[tuple[yaml.Node, str]]:
    """The elements of an optional list with their locations; none if it is absent or not a list."""
    nodes = None if entry is None else reader.sequence(entry.node, entry.location)
    if entry is None or nodes is None:
        return []
    return [(node, item(entry.location, index)) for index, node in enumerate(nodes)]


def _read_gpu(reader: Reader, node: yaml.Node, location: str, node_scope: _NodeScope) -> Gpu | None:
    view = reader.mapping(node, location, GPU_KEYS)
    if view is None:
        return None
    index = _required_integer(reader, view, "index", rules.at_least(0, "a GPU index"))
    pci = _required_string(reader, view, "pci", rules.pci_address)
    _claim(node_scope.gpu_indexes, view, "index", index)
    _claim(node_scope.pci_addresses, view, "pci", pci)
    return Gpu(index, pci) if index is not None and pci is not None else None


def _check_gpu_pairing(
    reader: Reader, view: MappingView, gpu: int | None, gpu_indexes: tuple[int, ...], node_name: str | None
) -> None:
    entry = view.get("gpu")
    if gpu is not None and entry is not None and gpu not in gpu_indexes:
        known = ", ".join(map(str, gpu_indexes)) if gpu_indexes else "none are listed"
        reader.problem(
            entry.node, entry.location, f"GPU {gpu} does not exist on node {node_name} (its GPU indexes: {known})"
        )


def _checked_gateway(
    reader: Reader, view: MappingView, gateway: IPv4Address | None, interface: IPv4Interface | None
) -> IPv4Address | None:
    entry = view.get("gateway")
    if gateway is None or interface is None or entry is None:
        return gateway
    return reader.apply(entry.node, entry.location, gateway, lambda address: rules.gateway(address, interface))


def _check_cabling(
    reader: Reader, view: MappingView, switch: str | None, port: str | None, scope: ClusterScope
) -> None:
    switch_entry, port_entry = view.get("switch"), view.get("switch_port")
    if switch is not None and switch_entry is not None:
        scope.switch_references.append((switch, switch_entry.line, switch_entry.location))
    if port_entry is not None and switch_entry is None:
        reader.problem(port_entry.node, port_entry.location, "needs `switch` (the switch this port is on) beside it")
    elif switch is not None and port is not None:
        _claim(scope.switch_ports, view, "switch_port", f"{switch} {port}", identity=(switch, port))


def _read_nic(
    reader: Reader,
    node: yaml.Node,
    location: str,
    gpu_indexes: tuple[int, ...],
    node_name: str | None,
    node_scope: _NodeScope,
    scope: ClusterScope,
) -> Nic | None:
    view = reader.mapping(node, location, NIC_KEYS)
    if view is None:
        return None
    name = _required_string(reader, view, "name", rules.rdma_device)
    netdev = _required_string(reader, view, "netdev", rules.netdev)
    interface = _required_string(reader, view, "ipv4", rules.ipv4_interface)
    pci = _required_string(reader, view, "pci", rules.pci_address)
    speed = _required_integer(reader, view, "speed_gbps", rules.at_least(1, "a speed in Gb/s"))
    rail = _required_integer(reader, view, "rail", rules.at_least(0, "a rail number"))
    gpu = _optional(reader, view, "gpu", lambda r, e: r.integer(e.node, e.location))
    gateway = _optional(reader, view, "gateway", lambda r, e: r.string(e.node, e.location, rules.ipv4_address))
    route_table = _optional(reader, view, "route_table", lambda r, e: r.integer(e.node, e.location, rules.route_table))
    switch = _optional(reader, view, "switch", lambda r, e: r.string(e.node, e.location, rules.machine_name))
    port = _optional(reader, view, "switch_port", lambda r, e: r.string(e.node, e.location, rules.switch_port))

    _claim(node_scope.nic_names, view, "name", name)
    _claim(node_scope.netdevs, view, "netdev", netdev)
    _claim(node_scope.pci_addresses, view, "pci", pci)
    _claim(scope.nic_addresses, view, "ipv4", None if interface is None else interface.ip)
    _check_gpu_pairing(reader, view, gpu, gpu_indexes, node_name)
    gateway = _checked_gateway(reader, view, gateway, interface)
    _check_cabling(reader, view, switch, port, scope)
    return Nic(name, netdev, interface, pci, speed, rail, gpu, gateway, route_table, switch, port)  # type: ignore[arg-type]


def read_node(reader: Reader, node: yaml.Node, location: str, defaults: Defaults, scope: ClusterScope) -> Node | None:
    view = reader.mapping(node, location, NODE_KEYS)
    if view is None:
        return None
    name = _required_string(reader, view, "name", rules.machine_name)
    _claim(scope.names, view, "name", name)
    address = _required_string(reader, view, "address", rules.machine_address)
    _claim(scope.addresses, view, "address", address, identity=None if address is None else rules.host_key(address))
    ssh = _ssh_config(defaults, _section(reader, view.get("ssh"), SSH_KEYS, _SSH_FIELDS))
    platform = _platform(reader, view, defaults)
    esx_entry = view.get("esx_host")
    esx_host = None if esx_entry is None else reader.string(esx_entry.node, esx_entry.location, rules.host)
    if esx_entry is not None and platform is not None and platform.deployment != "vmware":
        reader.problem(
            esx_entry.node,
            esx_entry.location,
            f"esx_host is for vmware nodes only (this node's deployment is {platform.deployment})",
        )
    profile = _node_profile(reader, view, scope.known_profiles)
    node_scope = _NodeScope(reader.log)
    gpus_entry = view.get("gpus")
    gpu_items = _list_items(reader, gpus_entry)
    if gpus_entry is not None and gpu_items and platform is not None and platform.gpu_vendor == "none":
        reader.log.add(
            gpus_entry.key_line,
            gpus_entry.location,
            "GPUs are listed but platform.gpu_vendor is none (expected gpu_vendor amd or nvidia, or no gpus)",
        )
    gpus = tuple(gpu for gpu_node, loc in gpu_items if (gpu := _read_gpu(reader, gpu_node, loc, node_scope)))
    gpu_indexes = tuple(dict.fromkeys(gpu.index for gpu in gpus))
    nics = tuple(
        nic
        for nic_node, loc in _list_items(reader, view.get("nics"))
        if (nic := _read_nic(reader, nic_node, loc, gpu_indexes, name, node_scope, scope))
    )
    return Node(name, address, ssh, platform, esx_host, gpus, nics, profile)  # type: ignore[arg-type]


def _node_profile(reader: Reader, view: MappingView, known_profiles: frozenset[str]) -> str | None:
    """A node's own thresholds profile (mixed clusters), overriding the site's profile for its items."""
    entry = view.get("profile")
    if entry is None:
        return None
    profile = reader.string(entry.node, entry.location)
    if profile is not None and profile not in known_profiles:
        known = ", ".join(sorted(known_profiles)) or "none are installed"
        reader.problem(entry.node, entry.location, f"unknown profile {profile!r} (known profiles: {known})")
    return profile


def read_switch(
    reader: Reader, node: yaml.Node, location: str, defaults: Defaults, scope: ClusterScope
) -> Switch | None:
    view = reader.mapping(node, location, SWITCH_KEYS)
    if view is None:
        return None
    name = _required_string(reader, view, "name", rules.machine_name)
    _claim(scope.names, view, "name", name)
    os_name = _required_string(reader, view, "os", rules.one_of(SWITCH_OSES))
    address = _required_string(reader, view, "address", rules.machine_address)
    _claim(scope.addresses, view, "address", address, identity=None if address is None else rules.host_key(address))
    ssh = _ssh_config(defaults, _section(reader, view.get("ssh"), SSH_KEYS, _SSH_FIELDS))
    return Switch(name, os_name, address, ssh)  # type: ignore[arg-type]


def check_switch_references(log: ProblemLog, scope: ClusterScope, switches: tuple[Switch, ...]) -> None:
    names = [switch.name for switch in switches]
    if None in names:
        return  # a switch without a valid name is already reported; its references cannot be judged
    for name, line, location in scope.switch_references:
        if name not in names:
            known = ", ".join(names) if names else "none are defined under `switches`"  # type: ignore[arg-type]
            log.add(line, location, f"unknown switch {name!r} (known switches: {known})")
