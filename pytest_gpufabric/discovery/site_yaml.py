"""Renders a discovered site as a commented site.yaml (schema version 1): every guess carries its reason."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields

from pytest_gpufabric.discovery.assemble import DiscoveredSite
from pytest_gpufabric.discovery.yaml_scalar import scalar
from pytest_gpufabric.inventory.model import Gpu, Nic, Node, Platform, SshConfig

NIC_FIELDS = ("name", "netdev", "ipv4", "pci", "speed_gbps", "rail", "gpu", "gateway", "route_table", "switch", "switch_port")
SSH_WRITTEN = ("user", "port", "key", "known_hosts", "sudo")


def _line(indent: str, key: str, value: object, comment: str | None = None) -> str:
    return f"{indent}{key}: {scalar(value)}" + (f"  # {comment}" if comment else "")


def _ssh_lines(ssh: SshConfig, indent: str) -> Iterator[str]:
    default = SshConfig()
    for name in SSH_WRITTEN:
        value = getattr(ssh, name)
        if value is not None and (name in ("user", "port") or value != getattr(default, name)):
            yield _line(indent, name, value)


def _platform_lines(platform: Platform, indent: str) -> Iterator[str]:
    for item in fields(Platform):
        if getattr(platform, item.name) is not None:  # gpu_link is not written where it was not read
            yield _line(indent, item.name, getattr(platform, item.name))


def _gpu_lines(gpu: Gpu) -> Iterator[str]:
    yield f"  - index: {gpu.index}"
    yield _line("    ", "pci", gpu.pci)


def _nic_lines(site: DiscoveredSite, node: str, nic: Nic) -> Iterator[str]:
    first = True
    for name in NIC_FIELDS:
        value = getattr(nic, name)
        comment = site.comments.get((node, nic.name, name))
        indent = "  - " if first else "    "
        if value is None:
            if comment:
                yield f"    # {name}: {comment}"
            continue
        yield _line(indent, name, value, comment)
        first = False


def _node_lines(site: DiscoveredSite, node: Node) -> Iterator[str]:
    yield _line("- ", "name", node.name)
    yield _line("  ", "address", node.address)
    note = site.comments.get((node.name,))
    for line in note.splitlines() if note else ():
        yield f"  # {line}"
    if node.platform != site.platform:
        yield "  platform:  # differs from most nodes"
        yield from _platform_lines(node.platform, "    ")
    if node.profile:
        yield _line("  ", "profile", node.profile, site.comments.get((node.name, "profile")))
    if node.gpus:
        yield "  gpus:"
        for gpu in node.gpus:
            yield from _gpu_lines(gpu)
    skipped = [text for key, text in site.comments.items() if key[:2] == (node.name, "skipped")]
    if node.nics or skipped:
        yield "  nics:" if node.nics else "  nics: []"
        for text in skipped:
            yield f"  # {text}"
        for nic in node.nics:
            yield from _nic_lines(site, node.name, nic)


def render_site(site: DiscoveredSite, header: str) -> str:
    """The site.yaml text; ``header`` (how it was made) becomes the leading comment."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    lines += [
        "version: 1",
        _line("", "site", site.site),
        _line("", "profile", site.profile, site.comments.get(("profile",))),
        _line("", "transport", site.transport),
        "defaults:",
        "  ssh:",
        *_ssh_lines(site.ssh, "    "),
        "  platform:  # the platform of most nodes",
        *_platform_lines(site.platform, "    "),
        "nodes:",
    ]
    for node in site.nodes:
        lines += list(_node_lines(site, node))
    if site.switches:
        lines.append("switches:  # from LLDP; reached with defaults.ssh unless a switch has its own ssh section")
        for switch in site.switches:
            lines += [
                _line("- ", "name", switch.name),
                _line("  ", "os", switch.os, "from its LLDP system description"),
                _line("  ", "address", switch.address, "its LLDP management address"),
            ]
    return "\n".join(lines) + "\n"
