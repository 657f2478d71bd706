"""Host settings of each node (catalog HOST-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.applicability import not_applicable
from pytest_gpufabric.checks.host import (
    guest_iommu_mode,
    iommu_evidence,
    iommu_groups_command,
    iommu_mode,
    routing_problems,
    shared_subnets,
)
from pytest_gpufabric.checks.service_facts import service_states
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from pytest_gpufabric.parsers.iommu_group import parse_iommu_groups
from pytest_gpufabric.parsers.ip import parse_ip_addr, parse_ip_route, parse_ip_rule
from pytest_gpufabric.parsers.kernel_cmdline import parse_kernel_cmdline
from pytest_gpufabric.parsers.meminfo import parse_meminfo
from pytest_gpufabric.parsers.sysctl import parse_proc_sys_int, parse_sysctl
from pytest_gpufabric.targets import NicTarget, NodeTarget


@pytest.mark.check("HOST-001")
def test_iommu_disabled_or_passthrough(node: NodeTarget, gpufabric: CheckContext) -> None:
    if node.node.platform.deployment == "guest":  # catalog HOST-001 `guest`: the guest's own IOMMU groups
        gpus = [gpu.pci for gpu in node.node.gpus]
        if not gpus:
            pytest.skip(f"{node.id}: a guest without GPUs in the inventory (HOST-001 judges the GPUs' IOMMU groups)")
        groups = gpufabric.parse(parse_iommu_groups, gpufabric.run(node.id, iommu_groups_command(gpus)))
        mode, evidence = guest_iommu_mode(groups, gpus)
        gpufabric.expect("iommu_mode", gpufabric.require(mode, evidence), detail=evidence)
        return
    cmdline = gpufabric.parse(parse_kernel_cmdline, gpufabric.run(node.id, "cat /proc/cmdline", cached=True))
    gpufabric.expect("iommu_mode", iommu_mode(cmdline), detail=iommu_evidence(cmdline))


@pytest.mark.check("HOST-002")
def test_numa_balancing_disabled(node: NodeTarget, gpufabric: CheckContext) -> None:
    value = gpufabric.parse(parse_proc_sys_int, gpufabric.run(node.id, "cat /proc/sys/kernel/numa_balancing"))
    gpufabric.expect("numa_balancing", value)


FIREWALLS = ("firewalld", "ufw")
# Documented failure lines of the NIC and GPU drivers: S0 5.1 FAQ 5 (bnxt_re QoS), FAQ 7 (symbol
# version clash with MLNX OFED), NVIDIA Xid events, amdgpu/bnxt errors.
KERNEL_ERROR_PATTERNS = (
    r"Fail to setets",
    r"Fail to initialize Flow control",
    r"disagrees about version of symbol",
    r"NVRM: Xid",
    r"\b(bnxt_en|bnxt_re|amdgpu)\b.*\b(error|fail(ed)?)\b",
)


@pytest.mark.check("HOST-003")
def test_no_host_firewall(node: NodeTarget, gpufabric: CheckContext) -> None:
    states = service_states(gpufabric, node.id, FIREWALLS)
    detail = ", ".join(states.active) or " ".join(f"{name} {state}" for name, state in states.states.items())
    gpufabric.expect("active_firewalls", len(states.active), detail=f"{detail} ({states.source})")


@pytest.mark.check("HOST-004")
def test_no_driver_errors_in_kernel_log(node: NodeTarget, gpufabric: CheckContext) -> None:
    log = gpufabric.parse(parse_dmesg, gpufabric.run(node.id, "dmesg", cached=True))
    found = log.matching(KERNEL_ERROR_PATTERNS)
    gpufabric.expect("error_lines", len(found), detail="; ".join(m.line.text for m in found[:5]))


@pytest.mark.check("HOST-005")
def test_host_memory(node: NodeTarget, gpufabric: CheckContext) -> None:
    memory = gpufabric.parse(parse_meminfo, gpufabric.run(node.id, "cat /proc/meminfo"))
    kib = gpufabric.require(memory.mem_total_kib, "MemTotal")
    gpufabric.expect("mem_total_gib", round(kib / 2**20, 1), detail=f"MemTotal {kib} kB")


@pytest.mark.check("HOST-006")
def test_arp_flux_avoided(node: NodeTarget, gpufabric: CheckContext) -> None:
    addresses = gpufabric.parse(parse_ip_addr, gpufabric.run(node.id, "ip -o -4 addr show", cached=True))
    shared = shared_subnets({nic.netdev: addresses.of(nic.netdev) for nic in node.node.nics})
    if not shared:  # the addresses decide: the ARP settings matter only where NICs share a subnet
        gpufabric.expect("shared_subnets", 0, detail="every backend NIC in its own subnet")
        return
    names = ("net.ipv4.conf.all.arp_ignore", "net.ipv4.conf.all.arp_announce")
    sysctl = gpufabric.parse(parse_sysctl, gpufabric.run(node.id, sh("sysctl", *names)))
    arp = {name.rsplit(".", 1)[1]: sysctl.get_int(name) for name in names}
    gpufabric.expect_each([
        ("arp_ignore", arp["arp_ignore"], None, "backend NICs share " + "; ".join(shared)),
        ("arp_announce", arp["arp_announce"], None, "backend NICs share " + "; ".join(shared)),
    ])


@pytest.mark.check("HOST-007")
def test_source_routing_table(nic: NicTarget, gpufabric: CheckContext) -> None:
    if nic.nic.route_table is None:
        not_applicable(f"{nic.id}: the inventory declares no route_table (not the routed subnet scheme of S0 2.4.1)")
    rules = gpufabric.parse(parse_ip_rule, gpufabric.run(nic.node.name, "ip rule show", cached=True))
    routes = gpufabric.parse(parse_ip_route, gpufabric.run(nic.node.name, sh("ip", "route", "list", "table", str(nic.nic.route_table))))
    problems = routing_problems(rules, routes, nic.nic.ipv4.ip, nic.nic.route_table, nic.nic.gateway)
    gpufabric.expect("routing_problems", len(problems), detail="; ".join(problems))
