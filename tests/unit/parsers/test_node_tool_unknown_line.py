"""One line this parser does not understand, in the middle of a real output of every node-tool parser of the
rule: a fact line replaced by a damaged copy of it (a unit the tool does not print, a missing colon, a cell that
is not a number). Only that line's facts are missing; the line is unread with its number; every other fact of the
output is read as before (the facts compared as the corpus measure flattens them, tools/corpus_node_tools.py)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.registry import PARSERS, to_plain
from tests.outputs import read_output
from tools.corpus_facts import FLATTEN

# (family, file, the line's text, its damaged copy, the fact keys the line held)
CASES = [
    ("lspci-vvv", "rocm_docs_pcie_debug_gpu.txt", "LnkSta:\tSpeed 8GT/s", "LnkSta:\tSpeed 8 GT/s", {"lnksta 0000:43:00.0"}),
    ("modinfo", "insights_core_rhel77_i40e.txt", "version:        2.3.2-k", "version        2.3.2-k", {"version"}),
    ("lsmod", "rxe_dev_issue75_softroce.txt", "ib_cm                  40960  1 rdma_cm", "ib_cm                  40960  one rdma_cm",
     {"size ib_cm", "used_count ib_cm", "used_by ib_cm"}),
    ("proc-modules", "h200_proc_modules.txt", "nvidia 14299136 - - Live", "nvidia 14299136 - - Alive",
     {"size nvidia", "used_count nvidia"}),
    ("dkms-status", "open_gpu_kernel_modules_issue526_added_built.txt", "vhba-module/20211218, 6.4.1-zen1-1-zen, x86_64: built",
     "vhba-module 20211218 6.4.1-zen1-1-zen x86_64 built", {"vhba-module/20211218 6.4.1-zen1-1-zen x86_64"}),
    ("ibstat", "l2fwd_nv_issue6_cx6dx.txt", "Rate: 100", "Rate: 100 Gb/s", {"rate_gbps mlx5_0/1"}),
    ("ibstatus", "nccl_issue1866_two_roce_ports.txt", "rate:            100 Gb/sec (4X EDR)", "rate:            100 Gbps",
     {"rate_gbps mlx5_0/1"}),
    ("ibv-devinfo", "deepep_issue38_mlx5_2.txt", "PORT_ACTIVE (4)", "ACTIVE", {"state mlx5_2/1"}),
    ("ibv-devices", "sriov_device_plugin_issue20_server.txt", "mlx5_0 506b4b0300285028", "mlx5_0 506b4b030028502",
     {"node_guid mlx5_0"}),
    ("show-gids", "nccl_tests_issue192_two_nics_cut.txt", "11.0.0.72       v2", "11.0.0.72       v3", {"gid mlx5_0/1[3]"}),
    ("sysfs-infiniband", "slurm_appliance_pr988_two_ports.txt", "mlx5_0/ports/1/state:4: ACTIVE", "mlx5_0/ports/1/state:ACTIVE",
     {"state mlx5_0/1"}),
    ("sysfs-pci-link", "h200_gpu0.txt", "current_link_width:16", "current_link_width:x16", {"current_width 0000:00:06.0"}),
    ("kernel-pcie-bandwidth", "arm_nas_issue16_mlx5_full_bandwidth.txt", "0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8",
     "0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe", {"bandwidth 0004:01:00.0"}),
    ("kallsyms", "s0_peer_mem_ib_uverbs.txt", "0000000000000000 T ib_register_peer_memory_client",
     "000000000000000X T ib_register_peer_memory_client", {"ib_register_peer_memory_client [ib_uverbs]"}),
    ("proc-cmdline", "s0_intel_iommu_pt.txt", "intel_iommu=on iommu=pt", 'intel_iommu=on iommu=pt "',
     {"pci=realloc=off", "intel_iommu=on", "iommu=pt"}),
    ("dpkg-list", "devhost_dpkg_1.21_with_header.txt", "ii  dpkg ", "i   dpkg ", {"dpkg"}),
    ("bnxt-re-conf", "s0_defaults.txt", "ROCE_DSCP=26", "ROCE_DSCP 26", {"ROCE_DSCP"}),
    ("niccli-qos", "s0_ets_show_configured.txt", "TC Bandwidth: 50% 50%", "TC Bandwidth: 50 50", {"TC Bandwidth"}),
    ("niccli-pri2cos", "s0_pri2cos.txt", " 3         1    0", " 3         1", {"priority 3"}),
    ("niccli-dscp2prio", "s1_dscp2prio.txt", "priority:3 dscp:26", "priority:3 dscp:twenty-six", {"dscp 26"}),
    ("niccli-list", "rocm_cvs_v237_right_justified_index.txt", "DA:EB:78:11:87:A8", "DA:EB:78:11:87", {"nic 10"}),
    ("vmx-settings", "dareoke_k3s_gpu_agent.txt", 'pciPassthru.allowP2P = "TRUE"', 'pciPassthru.allowP2P = "TRUE',
     {"pciPassthru.allowP2P"}),
    ("perftest", "rxe-ib_write_bw-all-sizes-gbits.txt", " 65536      100", " 65536      1O0", {"bw 65536"}),
    ("osu", "osu_bw-host-loopback.txt", "1024                 2408.54", "1024                 2408.5.4", {"size 1024"}),
    ("ping", "loopback-ok.txt", "rtt min/avg/max/mdev = ", "rtt min/avg/max/mdev: ",
     {"rtt_min_ms", "rtt_avg_ms", "rtt_max_ms", "rtt_mdev_ms"}),
    ("gdrcopy-sanity", "s1_sanity.txt", "basic_with_tokens", "basic with tokens", {"waived basic_with_tokens"}),
    ("device-query", "s1_fabric_manager_not_running.txt", "Result = FAIL", "Result: FAIL", {"passed"}),
    ("nccl-debug", "s0-8.7.3.3-channels-gdrdma.txt", "15[e6000] -> 0[1c000]", "15[e6000] -> 0 [1c000]",
     {"channel 00 15[e6000] -> 0[1c000] receive"}),
]


def _flat(family: str, text: str) -> dict[str, str]:
    return FLATTEN[family](to_plain(PARSERS.get(family).func(text).facts))


@pytest.mark.parametrize(("family", "name", "line", "damaged", "costs"), CASES, ids=[f"{c[0]}/{c[1]}" for c in CASES])
def test_a_damaged_line_costs_only_its_own_facts(family: str, name: str, line: str, damaged: str, costs: set[str]) -> None:
    text = read_output(family, name)
    assert text.count(line) >= 1, "the line to damage is in the output"
    number = text[: text.index(line)].count("\n") + 1
    variant = text.replace(line, damaged, 1)
    parsed = PARSERS.get(family).func(variant)
    assert number in {u.line for u in parsed.unread}, [u.describe() for u in parsed.unread]
    before, after = _flat(family, text), _flat(family, variant)
    assert costs <= set(before), f"the facts the line holds: {sorted(set(before))[:8]}"
    assert set(before) - set(after) == costs
    assert {key: value for key, value in before.items() if key not in costs} == after
