"""Pure evaluation of the driver checks (DRV-*), on real outputs where a parser is involved."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.drivers import (
    consistency_detail,
    devices_not_listed,
    dkms_installed,
    firmware_version,
    loaded_for_running_kernel,
    missing_modules,
    odd_ones_out,
    peer_memory_provider,
)
from pytest_gpufabric.parsers.kallsyms import KernelSymbols, parse_kallsyms
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.kmod import parse_dkms_status, parse_lsmod, parse_proc_modules
from tests.outputs import read_output


def test_odd_ones_out_names_the_minority() -> None:
    assert odd_ones_out({"n1": "1.0", "n2": "1.0", "n3": "0.9"}) == {"n3": "0.9"}
    assert odd_ones_out({"n1": "1.0", "n2": None}) == {"n2": None}  # tie: the smaller text is the reference
    assert odd_ones_out({}) == {}


def test_consistency_detail() -> None:
    assert consistency_detail("bnxt_en version", {"a": "1", "b": "1"}) == "bnxt_en version identical on all 2 nodes of the profile"
    assert consistency_detail("fw", {"a": "1", "b": "1", "c": None}) == "fw differs from the other nodes on c=missing"


def test_peer_memory_from_s0_kallsyms_is_ib_uverbs() -> None:
    assert peer_memory_provider(parse_kallsyms(read_output("kallsyms", "s0_peer_mem_ib_uverbs.txt")).facts) == "ib_uverbs"
    assert peer_memory_provider(KernelSymbols(())) == "none"
    assert peer_memory_provider(parse_kallsyms(read_output("kallsyms", "h200_nvidia_p2p.txt")).facts) == "none"


def test_missing_modules_in_a_real_lsmod() -> None:
    modules = parse_lsmod(read_output("lsmod", "quadrants_issue766_grep_nvidia.txt")).facts
    assert missing_modules(modules, ["nvidia", "nvidia_peermem", "nvidia_drm"]) == ["nvidia_peermem"]


def test_dkms_installed_for_running_kernel_in_s1_sample() -> None:
    entries = parse_dkms_status(read_output("dkms-status", "s1_wrapped.txt")).facts
    installed, problems = dkms_installed(entries, ["gdrdrv", "netxtreme-peer-mem", "nvidia", "amdgpu"], "5.15.0-143-generic")
    assert installed == ["gdrdrv", "netxtreme-peer-mem", "nvidia"]
    assert problems == ["amdgpu: no build for 5.15.0-143-generic"]
    assert dkms_installed(entries, ["nvidia"], "6.8.0-1-generic")[0] == []


def test_firmware_version_takes_the_running_image() -> None:
    assert firmware_version("234.0.145.0/pkg 234.0.145.0") == "234.0.145.0"
    assert firmware_version("16.35.2000 (MT_0000000010)") == "16.35.2000"
    assert firmware_version("") is None and firmware_version(None) is None


def test_devices_not_listed_matches_whole_names() -> None:
    text = "bnxt_re0 port 1 ==> enp29s0np0 (Up)\nbnxt_re10 port 1 ==> x (Up)\n"
    assert devices_not_listed(text, ["bnxt_re0", "bnxt_re1", "bnxt_re10"]) == ["bnxt_re1"]


def test_without_dkms_a_loaded_module_is_built_for_the_running_kernel() -> None:
    modules = parse_proc_modules(read_output("proc-modules", "h200_proc_modules.txt")).facts  # the H200 host has no dkms
    assert loaded_for_running_kernel(modules, ["nvidia"], "6.18.44") == ["nvidia"]
    with pytest.raises(MeasurementMissing, match=r"dkms is not installed \(exit 127\): gdrdrv, netxtreme-peer-mem not loaded"):
        loaded_for_running_kernel(modules, ["gdrdrv", "netxtreme-peer-mem", "nvidia"], "6.18.44")
