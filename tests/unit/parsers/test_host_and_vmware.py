"""meminfo, dpkg -l, gdrcopy_sanity, esxcli kernel settings, passthru.map and VMX settings."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.cuda_samples import parse_device_query
from pytest_gpufabric.parsers.esxcli import parse_esxcli_kernel_settings
from pytest_gpufabric.parsers.gdrcopy import parse_gdrcopy_sanity
from pytest_gpufabric.parsers.meminfo import parse_meminfo
from pytest_gpufabric.parsers.packages import parse_dpkg_list
from pytest_gpufabric.parsers.vmware import parse_passthru_map, parse_vmx_settings


@pytest.mark.parametrize(
    ("name", "total"), [("h200x2_meminfo.txt", 263998500), ("devhost_meminfo.txt", 24684096)], ids=["h200", "devhost"]
)
def test_meminfo(output, name: str, total: int) -> None:
    info = parse_meminfo(output("meminfo", name)).facts
    assert info.mem_total_kib == total and info.values["MemFree"] <= total


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("MemTotal: lots\n", "expected '<Field>: <number> kB'"), ("meminfo: no such file\n", "no '<Field>")],
    ids=["not-a-number", "not-meminfo"],
)
def test_malformed_meminfo(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_meminfo, text, "meminfo", fragment)


def test_meminfo_without_memtotal_leaves_it_missing(output, unread_line) -> None:
    """A damaged MemTotal line costs MemTotal only: HOST-005 then has no value to judge (an error, never a pass)."""
    text = output("meminfo", "devhost_meminfo.txt")
    parsed = parse_meminfo(text.replace("MemTotal:       24684096 kB", "MemTotal:       24684096 KB"))
    assert parsed.facts.mem_total_kib is None and parsed.facts.values["MemFree"] > 0
    unread_line(parsed, "MemTotal", "expected '<Field>: <number> kB'")


def test_dpkg_list(output) -> None:
    packages = parse_dpkg_list(output("dpkg-list", "h200_grep_nvidia_cuda.txt")).facts
    assert len(packages.packages) == 43 and all(p.installed for p in packages.packages)
    assert packages.get("cuda-cudart-13-0").version == "13.0.96-1"
    nccl = packages.get("libnccl2")  # held ("hi"), still installed
    assert nccl.state == "hi" and nccl.version == "2.28.3-1+cuda13.0"
    assert packages.get("rocm-core") is None


def test_dpkg_list_with_header_and_removed_package() -> None:
    text = (
        "Desired=Unknown/Install/Remove/Purge/Hold\n| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend\n"
        "|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)\n||/ Name Version Architecture Description\n+++-====-====-====-====\n"
        "rc  rocm-core 6.2.0.60200-66~22.04 amd64 ROCm Runtime software stack\n"
    )
    package = parse_dpkg_list(text).facts.get("rocm-core")
    assert package.version == "6.2.0.60200-66~22.04" and not package.installed


def test_malformed_dpkg_list(parse_error) -> None:
    parse_error(parse_dpkg_list, "dpkg-query: no packages found matching rocm-core\n", "dpkg-list", "expected '<state> <name>")


def test_gdrcopy_sanity(output) -> None:
    result = parse_gdrcopy_sanity(output("gdrcopy-sanity", "s1_sanity.txt")).facts
    # As printed by the document (31 + 6 + 5 is not 36); the parser reports, the check judges.
    assert (result.total, result.passed, result.failed, result.waived) == (36, 31, 6, 5)
    assert len(result.waived_tests) == 5 and result.waived_tests[2] == "basic_with_tokens"


def test_malformed_gdrcopy_sanity(parse_error) -> None:
    parse_error(parse_gdrcopy_sanity, "gdrcopy_sanity: error while loading shared libraries: libgdrapi.so.2\n", "no 'Total: ...' or 'Checks: ...' summary")


@pytest.mark.parametrize(
    ("name", "setting", "runtime"),
    [("s1_disableACSCheck.txt", "disableACSCheck", False), ("s1_atsSupport.txt", "atsSupport", True),
     ("s1_enableACSDTP2P.txt", "enableACSDTP2P", True)],
    ids=["disableACSCheck", "atsSupport", "enableACSDTP2P"],
)
def test_esxcli_kernel_settings(output, name: str, setting: str, runtime: bool) -> None:
    settings = parse_esxcli_kernel_settings(output("esxcli-kernel-settings", name)).facts
    assert settings[setting].runtime_bool is runtime and settings[setting].configured == settings[setting].default


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Name Type Configured Runtime Default Description\n", "no setting row"),
     ("Error: Unknown command or namespace system settings kernel lst\n", "expected the header")],
    ids=["unknown-option", "bad-command"],
)
def test_malformed_esxcli(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_esxcli_kernel_settings, text, "esxcli-kernel-settings", fragment)


@pytest.mark.parametrize(
    ("name", "reset"), [("s1_original_bridge.txt", "bridge"), ("s1_changed_flr.txt", "flr")], ids=["original", "changed"]
)
def test_passthru_map(output, name: str, reset: str) -> None:
    (entry,) = parse_passthru_map(output("passthru-map", name)).facts
    # The document's OCR turned the NVIDIA vendor id 10de into 16de / 1ede; kept as printed.
    assert entry.device_id == "ffff" and entry.reset_method == reset and entry.fpt_shareable is False


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("# comments only\n", "no '<vendor> <device> <resetMethod>' entry"), ("10de ffff\n", "expected '<vendor> <device> <resetMethod>"),
     ("nvidia ffff flr false\n", "expected '<vendor>")],
    ids=["comments-only", "no-reset-method", "vendor-name"],
)
def test_malformed_passthru_map(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_passthru_map, text, "passthru-map", fragment)


def test_vmx_settings(output) -> None:
    settings = parse_vmx_settings(output("vmx-settings", "dareoke_k3s_gpu_agent.txt")).facts
    assert settings.get_bool("pciPassthru.allowP2P") is True
    assert settings.get_bool("pciPassthru.use64bitMMIO") is True
    assert settings.get("pciPassthru.64bitMMIOSizeGB") == "128"
    assert settings.get("pciPassthru.relaxACSforP2P") is None  # this VM uses RelaxACSCheck instead


def test_vmx_settings_document_bullets_are_rejected(output, parse_error) -> None:
    parse_error(parse_vmx_settings, output("vmx-settings", "s1_advanced_settings_bullets.txt"), "expected 'key = \"value\"'")


def test_device_query_failure_without_fabric_manager(output) -> None:
    result = parse_device_query(output("device-query", "s1_fabric_manager_not_running.txt")).facts
    assert not result.passed and result.device_count is None
    assert result.errors == ("cudaGetDeviceCount returned 862", "-> system not yet initialized")  # 862: the document's OCR of 802


def test_device_query_cut_before_its_result_has_no_result(output) -> None:
    """A quote cut before "Result =": the device it lists is read, the result is not known (never a pass)."""
    result = parse_device_query(output("device-query", "cudaminer_issue57_truncated.txt")).facts
    assert result.passed is None and result.device_count == 1 and result.device_names == ("GeForce GTX 460",)


def test_device_query_pass_summary() -> None:
    text = 'Detected 2 CUDA Capable device(s)\n\nDevice 0: "NVIDIA H200"\n\nDevice 1: "NVIDIA H200"\n\nResult = PASS\n'
    result = parse_device_query(text).facts
    assert result.passed and result.device_count == 2 and result.device_names == ("NVIDIA H200", "NVIDIA H200")
