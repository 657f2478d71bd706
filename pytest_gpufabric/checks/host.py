"""Host settings (HOST-*): what the kernel command line (or, in a guest, the GPUs' IOMMU groups) says about the
IOMMU."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from pytest_gpufabric.commands import sh

from pytest_gpufabric.parsers.ip import Route, Rule
from pytest_gpufabric.parsers.kernel_cmdline import KernelCmdline

PASSTHROUGH = "passthrough"
OFF = "off"
TRANSLATED = "translated"


def iommu_mode(cmdline: KernelCmdline) -> str:
    """``off`` when any IOMMU parameter turns it off, ``passthrough`` with ``iommu=pt`` (or
    ``iommu.passthrough=1``), else ``translated`` (the kernel default on AMD and Intel servers)."""
    if OFF in (cmdline.iommu, cmdline.amd_iommu, cmdline.intel_iommu):
        return OFF
    if cmdline.iommu == "pt" or cmdline.get("iommu.passthrough") in ("1", "y", "on"):
        return PASSTHROUGH
    return TRANSLATED


def iommu_evidence(cmdline: KernelCmdline) -> str:
    """The parameters that decided the mode, for the failure message."""
    shown = [f"{k}={v}" for k, v in cmdline.params if k in ("iommu", "amd_iommu", "intel_iommu", "iommu.passthrough")]
    return " ".join(shown) or "no iommu parameter on the kernel command line"


# The default domain types of an IOMMU group (Linux Documentation/ABI/testing/sysfs-kernel-iommu_groups).
GROUP_TYPES = {"identity": PASSTHROUGH, "DMA": TRANSLATED, "DMA-FQ": TRANSLATED}
MODE_ORDER = (TRANSLATED, PASSTHROUGH, OFF)  # the combined mode of several GPUs: the first of these any GPU has


def iommu_groups_command(gpus: Sequence[str]) -> str:
    """Each GPU's ``vendor`` (it is there) and its IOMMU group's ``type`` (absent without a group)."""
    return sh("grep", "-H", ".", *(f"/sys/bus/pci/devices/{bdf}/{name}" for bdf in gpus for name in ("vendor", "iommu_group/type")))


def guest_iommu_mode(groups: Mapping[str, str | None], gpus: Sequence[str]) -> tuple[str | None, str]:
    """A guest's IOMMU mode from its GPUs' groups: ``off`` for a GPU in no group (no virtual IOMMU),
    ``passthrough`` for ``identity``, ``translated`` for ``DMA``/``DMA-FQ``, any other type as written; the
    mode of the GPUs together (the first of translated, passthrough, off, or an unknown type), with the
    evidence. None when a GPU of the inventory is not there."""
    modes, evidence = [], []
    for bdf in gpus:
        if bdf not in groups:
            return None, f"{bdf}: no such PCI device"
        kind = groups[bdf]
        modes.append(OFF if kind is None else GROUP_TYPES.get(kind, kind))
        evidence.append(f"{bdf}: " + ("in no IOMMU group" if kind is None else f"IOMMU group type {kind}"))
    unknown = [mode for mode in modes if mode not in MODE_ORDER]
    mode = unknown[0] if unknown else next(m for m in MODE_ORDER if m in modes)
    return mode, "; ".join(evidence)


def shared_subnets(interfaces: dict[str, tuple[IPv4Interface, ...]]) -> list[str]:
    """Subnets holding more than one of the given interfaces (the ARP-flux condition of S0 2.4)."""
    owners: dict[IPv4Network, list[str]] = {}
    for name, addresses in sorted(interfaces.items()):
        for address in addresses:
            owners.setdefault(address.network, []).append(name)
    return [f"{net}: {', '.join(names)}" for net, names in sorted(owners.items()) if len(names) > 1]


def routing_problems(rules: tuple[Rule, ...], routes: tuple[Route, ...], address: IPv4Address, table: int, gateway: IPv4Address | None) -> list[str]:
    """What S0 2.4.1/2.4.2 source routing lacks for one NIC: the ``from <ip> lookup <table>`` rule and the
    table's default route via the NIC's gateway."""
    problems = []
    if not any(r.table == str(table) and r.source_network is not None and address in r.source_network for r in rules):
        problems.append(f"no rule 'from {address} lookup {table}'")
    defaults = [r for r in routes if r.is_default]
    if not defaults:
        problems.append(f"table {table} has no default route")
    elif gateway is not None and not any(r.gateway_address == gateway for r in defaults):
        problems.append(f"table {table} default route via {', '.join(str(r.gateway) for r in defaults)}, not {gateway}")
    return problems
