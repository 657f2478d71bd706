from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.kernel_cmdline import parse_kernel_cmdline
from pytest_gpufabric.parsers.sysctl import parse_proc_sys_int, parse_sysctl

TOOL = "proc-cmdline"


@pytest.mark.parametrize(
    ("name", "vendor_key"),
    [("s0_amd_iommu_pt.txt", "amd_iommu"), ("s0_intel_iommu_pt.txt", "intel_iommu")],
    ids=["amd", "intel"],
)
def test_documented_command_lines(output, name: str, vendor_key: str) -> None:
    cmdline = parse_kernel_cmdline(output(TOOL, name)).facts
    assert cmdline.iommu == "pt"
    assert cmdline.get(vendor_key) == "on"
    other = {"amd_iommu", "intel_iommu"} - {vendor_key}
    assert cmdline.get(other.pop()) is None
    assert cmdline.params[0] == ("BOOT_IMAGE", "/boot/vmlinuz-5.15.0-102-generic")
    assert ("ro", None) in cmdline.params
    assert cmdline.get("pci") == "realloc=off"


def test_last_occurrence_wins_and_init_arguments_are_dropped() -> None:
    cmdline = parse_kernel_cmdline('quiet iommu=on iommu=pt "x=a b" -- init-arg iommu=off\n').facts
    assert cmdline.iommu == "pt"
    assert cmdline.get("x") == "a b"
    assert not cmdline.has("init-arg")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("   \n", "empty"), ('root=/dev/sda "unclosed\n', "quotes"), ("=value\n", "is not a kernel parameter"),
     ("-- only-init\n", "init's arguments only"), ("ro\x00quiet", "binary")],
    ids=["empty", "blank", "unbalanced-quote", "nameless", "only-init-args", "binary"],
)
def test_malformed_command_line(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_kernel_cmdline, text, "proc-cmdline", fragment)


@pytest.mark.parametrize("name", ["h200_numa_balancing.txt", "devhost_numa_balancing.txt"])
def test_numa_balancing(output, name: str) -> None:
    assert parse_proc_sys_int(output("proc-sys-value", name)).facts == 0


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("enabled\n", "expected a whole number")],
    ids=["empty", "word"],
)
def test_malformed_proc_sys_value(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_proc_sys_int, text, fragment)


def test_a_second_line_of_a_proc_sys_value_is_unread(unread_line) -> None:
    parsed = parse_proc_sys_int("0\n1\n")
    assert parsed.facts == 0
    unread_line(parsed, "1", "a second line")


def test_sysctl_arp_settings(output) -> None:
    settings = parse_sysctl(output("sysctl", "devhost_arp.txt")).facts
    assert settings.get_int("net.ipv4.conf.all.arp_ignore") == 0
    assert settings.get_int("net.ipv4.conf.all.arp_announce") == 0


def test_sysctl_missing_setting_is_reported(output, parse_error) -> None:
    settings = parse_sysctl(output("sysctl", "devhost_arp.txt")).facts
    parse_error(settings.get_int, "net.ipv4.ip_forward", "net.ipv4.ip_forward missing")


@pytest.mark.parametrize(
    "text",
    ["sysctl: cannot stat /proc/sys/net/ipv4/conf/all/arp_ignor: No such file or directory\n"],
    ids=["unknown-key-error"],
)
def test_sysctl_error_message_is_not_a_setting(parse_error, text: str) -> None:
    parse_error(parse_sysctl, text, "expected 'name = value'")


def test_a_line_of_another_form_costs_only_its_parameters(unread_line) -> None:
    """A warning before the command line (ssh's first connection) is unread; the parameters are all read."""
    text = "Warning: Permanently added '10.0.0.2' (ED25519) to the list of known hosts.\nro quiet iommu=pt amd_iommu=on\n"
    parsed = parse_kernel_cmdline(text)
    assert (parsed.facts.iommu, parsed.facts.amd_iommu) == ("pt", "on") and not parsed.facts.has("Warning:")
    unread_line(parsed, "Permanently added", "is not a kernel parameter")
