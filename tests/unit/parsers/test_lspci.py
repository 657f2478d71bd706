from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.lspci import parse_lspci
from pytest_gpufabric.parsers.pci_path import normalize_bdf, parse_pci_device_path

TOOL = "lspci-vvv"
ALL_OFF = dict.fromkeys(["SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans"], False)


@pytest.mark.parametrize(
    ("name", "bdf", "class_name", "driver", "speed", "width"),
    [
        ("rocm_docs_pcie_debug_gpu.txt", "0000:43:00.0", "VGA compatible controller", "amdgpu", 8.0, 16),
        ("dpdk_playground_x550_nic.txt", "0000:05:00.0", "Ethernet controller", "ixgbe", 8.0, 4),
    ],
    ids=["amd-gpu-tab-indented", "intel-nic-space-indented"],
)
def test_endpoint(output, name: str, bdf: str, class_name: str, driver: str, speed: float, width: int) -> None:
    (function,) = parse_lspci(output(TOOL, name)).facts.functions
    assert (function.bdf, function.class_name, function.driver) == (bdf, class_name, driver)
    assert not function.is_bridge
    assert function.capabilities_readable
    assert function.acs_ctl == ALL_OFF
    assert function.acs_enabled is False
    assert (function.link_cap.speed_gts, function.link_cap.width) == (speed, width)
    assert function.link_sta == function.link_cap
    assert not function.link_sta.downgraded


def test_lookup_accepts_short_address(output) -> None:
    report = parse_lspci(output(TOOL, "rocm_docs_pcie_debug_gpu.txt")).facts
    assert report.get("43:00.0") is report.functions[0]
    assert report.get("0000:44:00.0") is None


def test_bridge_with_acs_enabled_and_downgraded_link(output) -> None:
    """A hand-made root-port block (its ACSCtl line as quoted in HeyMeco/Rockchip-pcie-devices#6) before a real endpoint."""
    bridge = (
        "0000:00:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Device 1453 (prog-if 00 [Normal decode])\n"
        "\tCapabilities: [58] Express (v2) Root Port (Slot+), MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <64us\n"
        "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x8 (downgraded)\n"
        "\t\t\tTrErr- Train- SlotClk+ DLActive+ BWMgmt+ ABWMgmt-\n"
        "\tCapabilities: [2a0 v1] Access Control Services\n"
        "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+\n"
        "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
        "\tKernel driver in use: pcieport\n\n"
    )
    report = parse_lspci(bridge + output(TOOL, "rocm_docs_pcie_debug_gpu.txt")).facts
    root = report.get("0000:00:01.1")
    assert root.is_bridge and root.driver == "pcieport"
    assert root.acs_ctl["SrcValid"] is True and root.acs_ctl["TransBlk"] is False
    assert root.acs_enabled is True
    assert root.link_sta.speed_gts == 2.5 and root.link_sta.width == 8
    assert root.link_sta.speed_downgraded and root.link_sta.width_downgraded
    assert [f.bdf for f in report.functions] == ["0000:00:01.1", "0000:43:00.0"]


def test_no_acs_capability_and_unreadable_capabilities() -> None:
    text = (
        "00:1f.0 ISA bridge: Intel Corporation Device 7a06 (rev 11)\n"
        "\tSubsystem: Intel Corporation Device 7a06\n"
        "\tCapabilities: <access denied>\n"
    )
    (function,) = parse_lspci(text).facts.functions
    assert function.acs_ctl is None and function.acs_enabled is None
    assert function.link_cap is None and function.link_sta is None
    assert not function.capabilities_readable
    assert not function.is_bridge


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("", ("empty",)),
        ("05:00.0 Ethernet controller\n", ("expected '<class>: <device>'",)),
        ("lspci: Unable to load libkmod resources: error -2\n", ("expected a device line",)),
    ],
    ids=["empty", "no-class", "error-message"],
)
def test_refused(parse_error, text, fragments) -> None:
    parse_error(parse_lspci, text, "lspci-vvv", *fragments)


def test_an_excerpt_that_starts_inside_a_device(output, unread_line) -> None:
    """The lines before the first device line belong to a device that cannot be told: unread; the device after
    them is read."""
    parsed = parse_lspci(output(TOOL, "plx_issue_excerpt_starts_mid_device.txt"))
    assert [f.bdf for f in parsed.facts.functions] == ["0000:02:08.0"] and parsed.facts.functions[0].is_bridge
    unread_line(parsed, "ACSCtl: SrcValid+", "before any device line")


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ("\t\tLnkSta:\tTrErr- Train-\n", "LnkSta", "expected one 'Speed <n>GT/s'"),
        ("\t\tLnkSta:\tSpeed 2.5Gb/s, Width x4\n", "LnkSta", "expected one 'Speed <n>GT/s'"),  # pciutils before 3.0
        ("\t\tACSCtl:\tSrcValid TransBlk-\n", "ACSCtl", "expected flags"),
    ],
    ids=["link-without-values", "old-speed-unit", "acs-flag-without-sign"],
)
def test_a_judged_line_of_another_form_costs_only_that_field(unread_line, body: str, field: str, fragment: str) -> None:
    text = "05:00.0 Ethernet controller: X\n\tKernel driver in use: ixgbe\n" + body
    parsed = parse_lspci(text)
    (function,) = parsed.facts.functions
    assert function.driver == "ixgbe" and function.unread_fields == (field,)
    assert function.link_sta is None and function.acs_ctl is None
    assert function.acs_known is (field != "ACSCtl")
    unread_line(parsed, fragment)


def test_a_device_listed_twice_is_read_from_its_first_listing(unread_line) -> None:
    text = ("05:00.0 Ethernet controller: X\n\tKernel driver in use: ixgbe\n"
            "05:00.0 Ethernet controller: X\n\tKernel driver in use: vfio-pci\n")
    parsed = parse_lspci(text)
    assert [f.driver for f in parsed.facts.functions] == ["ixgbe"]
    unread_line(parsed, "Kernel driver in use: vfio-pci", "listed twice")


def test_lines_after_a_margin_line_not_understood_belong_to_no_device(unread_line) -> None:
    """A prompt pasted inside an output: the indented lines after it cannot be told apart, so the device before it
    says its ACS state is not known rather than absent."""
    text = ("05:00.0 Ethernet controller: X\n\tKernel driver in use: ixgbe\nuser@host:~$ lspci -vvv | less\n"
            "\t\tACSCtl:\tSrcValid+ TransBlk-\n")
    parsed = parse_lspci(text)
    (function,) = parsed.facts.functions
    assert function.acs_ctl is None and not function.acs_known
    unread_line(parsed, "ACSCtl:", "after the line 3 not understood")


@pytest.mark.parametrize(
    ("address", "expected"),
    [("43:00.0", "0000:43:00.0"), ("0000:C1:00.1", "0000:c1:00.1"), ("00000000:1B:00.0", "0000:1b:00.0")],
    ids=["short", "upper-case", "nvidia-smi-8-digit-domain"],
)
def test_normalize_bdf(address: str, expected: str) -> None:
    assert normalize_bdf(address) == expected


@pytest.mark.parametrize("address", ["43:00", "0000:43:00.8", "eth0", ""], ids=["no-function", "function-8", "name", "empty"])
def test_normalize_bdf_rejects(address: str) -> None:
    with pytest.raises(ValueError, match="not a PCI address"):
        normalize_bdf(address)


@pytest.mark.parametrize(
    ("name", "chain"),
    [
        ("mooncake_pr581_bus1.txt", ("0000:b2:03.1", "0000:b9:00.0", "0000:ba:01.0", "0000:bc:00.0")),
        ("mooncake_pr581_bus2.txt", ("0000:b2:03.1", "0000:b9:00.0", "0000:ba:00.0", "0000:bb:00.0")),
        ("h200_gpu1.txt", ("0000:00:07.0",)),
    ],
    ids=["switch-bus1", "switch-bus2", "directly-on-root-bus"],
)
def test_sysfs_device_path(output, name: str, chain: tuple[str, ...]) -> None:
    path = parse_pci_device_path(output("sysfs-pci-path", name)).facts
    assert path.chain == chain
    assert path.device == chain[-1] and path.upstream == chain[:-1]
    assert path.root_bus == chain[0][:7]


def test_devices_below_one_switch_share_their_upstream_port(output) -> None:
    one, two = (parse_pci_device_path(output("sysfs-pci-path", f"mooncake_pr581_bus{n}.txt")).facts for n in (1, 2))
    assert set(one.upstream) & set(two.upstream) == {"0000:b2:03.1", "0000:b9:00.0"}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("/sys/devices/platform/serial8250\n", "root bus"),
        ("/sys/devices/pci0000:00/0000:00:01.0/net/eth0\n", "'net' is not a PCI function"),
        ("readlink: missing operand\n", "not a sysfs PCI device path"),
    ],
    ids=["empty", "platform-device", "netdev-below", "error-message"],
)
def test_sysfs_device_path_malformed(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_pci_device_path, text, "sysfs-pci-path", fragment)
