"""Parsers of the kernel's own interfaces (/proc/modules, /sys/module, /sys/bus/pci link files) and of its PCIe
bandwidth message, on real outputs of a 2 x H200 machine and of public issue threads."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.kmod import parse_proc_modules, parse_sysfs_module_version
from pytest_gpufabric.parsers.pci_link import link_files_command, parse_sysfs_pci_link
from pytest_gpufabric.parsers.pcie_bandwidth import notice_for, parse_pcie_bandwidth, pcie_bandwidth_notices

Output = Callable[[str, str], str]


def test_proc_modules_without_unload_counts(output: Output) -> None:
    modules = parse_proc_modules(output("proc-modules", "h200_proc_modules.txt")).facts
    assert [(m.name, m.size, m.used_count, m.used_by) for m in modules.modules] == [
        ("nvidia_uvm", 1830912, -1, ()), ("nvidia", 14299136, -1, ())]
    assert modules.get("nvidia") is not None and modules.get("nvidia_peermem") is None


def test_proc_modules_with_users() -> None:
    text = "ib_uverbs 184320 2 rdma_ucm,bnxt_re, Live 0xffffffffc0a5c000\nbnxt_re 282624 0 - Live 0xffffffffc0b01000 (OE)\n"
    modules = parse_proc_modules(text).facts
    assert modules.get("ib_uverbs").used_by == ("rdma_ucm", "bnxt_re")
    assert modules.get("bnxt_re").used_count == 0


def test_proc_modules_given_lsmod_output(output: Output, parse_error: Callable[..., ParseError]) -> None:
    parse_error(parse_proc_modules, output("lsmod", "rxe_dev_issue75_softroce.txt"), "expected '<module> <size>")


def test_sysfs_module_version(output: Output, parse_error: Callable[..., ParseError]) -> None:
    assert parse_sysfs_module_version(output("sysfs-module-version", "h200_nvidia.txt")).facts == "580.159.04"
    parse_error(parse_sysfs_module_version, "cat: /sys/module/bnxt_re/version: No such file or directory\n", "one version")


@pytest.mark.parametrize(("name", "bdf"), [("h200_gpu0.txt", "0000:00:06.0"), ("h200_gpu1.txt", "0000:00:07.0")])
def test_sysfs_pci_link(output: Output, name: str, bdf: str) -> None:
    link = parse_sysfs_pci_link(output("sysfs-pci-link", name)).facts
    assert (link.bdf, link.current_speed_gts, link.current_width, link.max_speed_gts, link.max_width) == (bdf, 32.0, 16, 32.0, 16)
    assert not link.below_capability
    assert link_files_command(bdf).startswith(f"grep -H . /sys/bus/pci/devices/{bdf}/current_link_speed ")


def test_sysfs_pci_link_degraded_and_older_kernel_units(output: Output) -> None:
    text = output("sysfs-pci-link", "h200_gpu0.txt").replace("current_link_speed:32.0 GT/s PCIe", "current_link_speed:8 GT/s")
    link = parse_sysfs_pci_link(text.replace("current_link_width:16", "current_link_width:8")).facts
    assert (link.current_speed_gts, link.current_width, link.below_capability) == (8.0, 8, True)


@pytest.mark.parametrize(("mutate", "fragment", "field"), [
    (lambda t: t.replace("32.0 GT/s PCIe", "fast", 1), "expected '<n> GT/s", "current_link_speed"),
    (lambda t: t + t.replace("0000:00:06.0", "0000:00:07.0").splitlines()[0] + "\n", "a file of 0000:00:07.0", None),
    (lambda t: t + t.splitlines()[1] + "\n", "current_link_width given twice", None),
], ids=["speed", "two-devices", "twice"])
def test_sysfs_pci_link_line_not_understood(output: Output, unread_line, mutate, fragment: str, field: str | None) -> None:
    """A line of another form, device or a second time costs only its own value; the link is below capability or
    not only when every file was read."""
    parsed = parse_sysfs_pci_link(mutate(output("sysfs-pci-link", "h200_gpu0.txt")))
    unread_line(parsed, fragment)
    assert parsed.facts.bdf == "0000:00:06.0" and parsed.facts.max_width == 16
    assert parsed.facts.missing == ((field,) if field else ())
    assert parsed.facts.below_capability is (None if field else False)


def test_sysfs_pci_link_cut_short(output: Output) -> None:
    link = parse_sysfs_pci_link("\n".join(output("sysfs-pci-link", "h200_gpu0.txt").splitlines()[:3]) + "\n").facts
    assert link.missing == ("max_link_width",) and link.below_capability is None and link.max_speed_gts == 32.0


def test_sysfs_pci_link_down_is_below_capability(output: Output) -> None:
    text = output("sysfs-pci-link", "h200_gpu0.txt").replace("current_link_speed:32.0 GT/s PCIe", "current_link_speed:Unknown")
    link = parse_sysfs_pci_link(text.replace("current_link_width:16", "current_link_width:0")).facts
    assert (link.current_speed_gts, link.current_width, link.below_capability) == (None, None, True)


def test_kernel_message_limited_by_upstream_link(output: Output) -> None:
    (notice,) = parse_pcie_bandwidth(output("kernel-pcie-bandwidth", "rpi_pcie_issue712_vega_limited_x1.txt")).facts
    assert (notice.device, notice.limited_by, notice.speed, notice.width) == ("0000:01:00.0", "0000:00:00.0", "8.0", 1)
    assert (notice.available_gbps, notice.capable_gbps, notice.capable_width) == (7.876, 126.016, 16)
    assert notice.available_fraction == 7.876 / 126.016


def test_kernel_message_full_bandwidth(output: Output) -> None:
    notices = parse_pcie_bandwidth(output("kernel-pcie-bandwidth", "arm_nas_issue16_mlx5_full_bandwidth.txt")).facts
    assert [(n.device, n.available_gbps, n.limited, n.available_fraction) for n in notices] == [
        ("0004:01:00.0", 63.008, False, 1.0), ("0004:01:00.1", 63.008, False, 1.0)]
    assert notice_for(notices, "0004:01:00.1") == notices[1]


def test_kernel_log_without_message(output: Output, parse_error: Callable[..., ParseError]) -> None:
    parse_error(pcie_bandwidth_notices, output("dmesg", "h200_grep_nvidia.txt"), "no 'Gb/s available PCIe bandwidth' message")


def test_kernel_message_wrapped_by_a_pager(output: Output, unread_line) -> None:
    """A message a pager wrapped is unread, scoped to its device; the other device's message is still read."""
    text = output("kernel-pcie-bandwidth", "arm_nas_issue16_mlx5_full_bandwidth.txt")
    wrapped = text.replace("0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0", "0004:01:00.0: 63.008 Gb/s available PCIe bandwidth\n(8.0")
    parsed = parse_pcie_bandwidth(wrapped)
    assert [n.device for n in parsed.facts] == ["0004:01:00.1"]
    assert unread_line(parsed, "63.008 Gb/s available", "unknown layout")
    assert {u.scope for u in parsed.unread} == {"0004:01:00.0"}
