"""Facts read with the preferred tool, or from the kernel's interfaces where a node lacks it (outputs of a real
2 x H200 machine without lsmod, modinfo and lspci)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.node_facts import PcieLinkState, loaded_modules, module_version, pcie_link
from pytest_gpufabric.checks.pcie import bandwidth_on_path
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from tests.outputs import read_output
from tests.unit.checks.answering_node import context


def test_modules_from_proc_when_lsmod_is_missing() -> None:
    gpufabric = context({"cat /proc/modules": (read_output("proc-modules", "h200_proc_modules.txt"), "", 0)})
    assert loaded_modules(gpufabric, "h200").get("nvidia") is not None
    assert [result.command for result in gpufabric.commands] == ["lsmod", "cat /proc/modules"]


def test_lsmod_preferred_when_present() -> None:
    gpufabric = context({"lsmod": (read_output("lsmod", "rxe_dev_issue75_softroce.txt"), "", 0)})
    assert loaded_modules(gpufabric, "h200").get("rdma_rxe") is not None
    assert [result.command for result in gpufabric.commands] == ["lsmod"]


def test_nothing_readable_names_the_missing_tool() -> None:
    gpufabric = context({"cat /proc/modules": ("", "cat: /proc/modules: No such file or directory\n", 1)})
    with pytest.raises(MeasurementMissing, match=r"lsmod is not installed \(exit 127\) and `cat /proc/modules` did not answer"):
        loaded_modules(gpufabric, "h200")


def test_module_version_from_sys_module() -> None:
    gpufabric = context({"cat /sys/module/nvidia/version": ("580.159.04\n", "", 0),
                         "cat /sys/module/bnxt_re/version": ("", "cat: /sys/module/bnxt_re/version: No such file or directory\n", 1)})
    assert module_version(gpufabric, "h200", "nvidia") == "580.159.04"
    assert module_version(gpufabric, "h200", "bnxt_re") is None


def test_pcie_link_from_sysfs_when_lspci_is_missing() -> None:
    command = ("grep -H . /sys/bus/pci/devices/0000:00:06.0/current_link_speed /sys/bus/pci/devices/0000:00:06.0/current_link_width "
               "/sys/bus/pci/devices/0000:00:06.0/max_link_speed /sys/bus/pci/devices/0000:00:06.0/max_link_width")
    gpufabric = context({command: (read_output("sysfs-pci-link", "h200_gpu0.txt"), "", 0)})
    link = pcie_link(gpufabric, "h200", "0000:00:06.0")
    assert (link.speed_gts, link.width, link.below_capability) == (32.0, 16, False)
    assert "lspci not installed" in link.detail


def test_pcie_link_unreadable_names_lspci() -> None:
    with pytest.raises(MeasurementMissing, match="lspci is not installed"):
        pcie_link(context({}), "h200", "0000:00:06.0")


FULL = PcieLinkState(32.0, 16, 32.0, 16, False, "test")
SLOW = PcieLinkState(16.0, 8, 32.0, 16, True, "test")


def test_kernel_message_names_a_slower_upstream_link() -> None:
    log = parse_dmesg(read_output("kernel-pcie-bandwidth", "rpi_pcie_issue712_vega_limited_x1.txt")).facts
    path = bandwidth_on_path(log, "0000:01:00.0", FULL)  # the device's own link looks fine, the path does not
    assert path.fraction == 7.876 / 126.016
    assert "limited by the link at 0000:00:00.0" in path.detail


def test_enumerated_without_message_is_full_bandwidth() -> None:
    log = parse_dmesg(read_output("kernel-pcie-bandwidth", "rpi_pcie_issue712_vega_limited_x1.txt")).facts
    assert bandwidth_on_path(log, "0000:03:00.0", SLOW).fraction == 1.0


def test_boot_log_gone_falls_back_to_the_own_link() -> None:
    log = parse_dmesg(read_output("dmesg", "h200_grep_nvidia.txt")).facts
    path = bandwidth_on_path(log, "0000:9a:00.0", SLOW)
    assert path.fraction == (15754 * 8) / (31508 * 16)
    assert "no longer in dmesg" in path.detail
