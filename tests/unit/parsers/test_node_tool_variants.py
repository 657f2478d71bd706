"""The variants of the parsing rule on real outputs of the node-tool parsers outside topology (tests/variants.py):
what the field does to an output (tabs for spaces at 8-column stops, trailing whitespace, CRLF, blank and warning
lines first or last) leaves the facts unchanged, and a fused or shifted cell refuses its row, never changing a
value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_gpufabric.parsers.all import MODULES  # noqa: F401  (registers every parser)
from pytest_gpufabric.parsers.registry import PARSERS
from tests.outputs import read_output
from tests.variants import END, assert_fused_cell_refused, assert_same_facts, assert_shift_never_misreads, line_variants, same_facts_variants

VARIANTS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
Parse = Callable[[str], Any]

# Tables of single-word cells: every variant, tabs for spaces included.
TABLES = [
    ("lsmod", "insights_core_rhel7_netfilter.txt"),
    ("show-gids", "nccl_tests_issue192_two_nics_cut.txt"),
    ("ibv-devices", "sriov_device_plugin_issue20_server.txt"),
    ("dpkg-list", "devhost_dpkg_1.21_with_header.txt"),
    ("niccli-pri2cos", "s0_pri2cos.txt"),
    ("niccli-list", "rocm_cvs_v237_right_justified_index.txt"),
    ("perftest", "rxe-ib_write_bw-all-sizes-gbits.txt"),
    ("perftest", "mi355x-ionic-ib_write_bw-bidirectional-q4-both-sides-gbits.txt"),
    ("osu", "osu_allgather-full-host-loopback.txt"),
    ("osu", "libfabric_cray_pr859_osu_latency_v5.0_srun.txt"),
    ("kallsyms", "s0_peer_mem_ib_uverbs.txt"),
    ("proc-modules", "h200_proc_modules.txt"),
]
# Lines of key and value, or prose: a value may hold a single space a tab must not replace.
LINES = [
    ("lspci-vvv", "pciutils_tests_cap_exp_lnkcap2_2020_four_devices.txt"),
    ("modinfo", "bumblebee_issue654_nouveau_multiline_parm_excerpt.txt"),
    ("modinfo", "aikitoria_ogkm_issue15_nvidia_590_excerpt.txt"),
    ("dkms-status", "s1_wrapped.txt"),
    ("ibstat", "rdma_core_pr847_mlx4_debug_lines_excerpt.txt"),
    ("ibstatus", "nccl_issue1935_down_ports_tabs.txt"),
    ("ibv-devinfo", "ucx_issue7613_verbose_capability_flags_excerpt.txt"),
    ("ibv-devinfo", "azhpc_pr44_truncated_second_device.txt"),
    ("sysfs-infiniband", "slurm_appliance_pr988_two_ports.txt"),
    ("sysfs-pci-link", "h200_gpu0.txt"),
    ("kernel-pcie-bandwidth", "rpi_pcie_issue712_vega_limited_x1.txt"),
    ("proc-cmdline", "insights_core_rhel7_grub2.txt"),
    ("bnxt-re-conf", "s1_defaults_blank_lines.txt"),
    ("niccli-qos", "s0_ets_show_configured.txt"),
    ("niccli-dscp2prio", "s0_dscp2prio.txt"),
    ("niccli-nvm-getoption", "s1_support_rdma.txt"),
    ("esxcli-kernel-settings", "s1_atsSupport.txt"),
    ("vmx-settings", "dareoke_k3s_gpu_agent.txt"),
    ("passthru-map", "s1_changed_flr.txt"),
    ("ping", "netns-routed-jumbo-frag-needed.txt"),
    ("ping", "busybox-1.35-loopback-ok.txt"),
    ("gdrcopy-sanity", "gdrcopy_issue114_check_library_timeouts.txt"),
    ("device-query", "cudaminer_issue57_truncated.txt"),
    ("nccl-debug", "h200x2-mpirun-all_reduce_perf-nccl-debug-info.txt"),
    ("sysfs-module-version", "h200_nvidia.txt"),
]


def _parse(family: str) -> Parse:
    return PARSERS.get(family).func


def _ids(cases: list[tuple[str, str]]) -> list[str]:
    return [f"{family}/{name}" for family, name in cases]


@pytest.mark.parametrize(("family", "name"), TABLES, ids=_ids(TABLES))
@given(data=st.data())
@VARIANTS
def test_table_variants_give_the_same_facts(family: str, name: str, data: st.DataObject) -> None:
    text = read_output(family, name)
    assert_same_facts(_parse(family), text, data.draw(same_facts_variants(text, insert_at=(0, END))))




@pytest.mark.parametrize(("family", "name"), LINES, ids=_ids(LINES))
@given(data=st.data())
@VARIANTS
def test_line_variants_give_the_same_facts(family: str, name: str, data: st.DataObject) -> None:
    text = read_output(family, name)
    assert_same_facts(_parse(family), text, data.draw(line_variants(text)))


def _row(family: str, name: str, starts: str) -> int:
    """The 1-based number of the first line of the output that starts (after its indent) with ``starts``."""
    lines = read_output(family, name).split("\n")
    return next(number for number, line in enumerate(lines, 1) if line.strip().startswith(starts))


@pytest.mark.parametrize(("family", "name", "row", "cell"), [
    ("perftest", "rxe-ib_write_bw-all-sizes-gbits.txt", "65536 ", 2),  # BW peak into BW average
    ("perftest", "rxe-ib_write_lat-all-sizes.txt", "1024 ", 3),
    ("osu", "osu_allgather-full-host-loopback.txt", "1024 ", 1),
    ("lsmod", "rxe_dev_issue75_softroce.txt", "ib_core ", 1),  # size into the use count
    ("niccli-pri2cos", "s0_pri2cos.txt", "3 ", 1),
    ("show-gids", "nccl_tests_issue192_two_nics_cut.txt", "mlx5_1  1       2", 3),  # the GID into its IPv4 address
    ("niccli-list", "rocm_cvs_v237_right_justified_index.txt", "10)", 2),  # MAC into firmware
], ids=["perftest-bw", "perftest-lat", "osu", "lsmod", "pri2cos", "show-gids", "niccli-list"])
def test_a_fused_cell_refuses_its_row(family: str, name: str, row: str, cell: int) -> None:
    assert_fused_cell_refused(_parse(family), read_output(family, name), _row(family, name, row), cell)


@pytest.mark.parametrize("by", [-4, -2, 2, 4])
@pytest.mark.parametrize(("family", "name", "row", "cell"), [
    ("perftest", "rxe-ib_write_bw-all-sizes-gbits.txt", "65536 ", 3),
    ("osu", "osu_allgather-full-host-loopback.txt", "1024 ", 2),
    ("lsmod", "rxe_dev_issue75_softroce.txt", "ib_core ", 2),
], ids=["perftest", "osu", "lsmod"])
def test_a_shifted_cell_is_never_misread(family: str, name: str, row: str, cell: int, by: int) -> None:
    assert_shift_never_misreads(_parse(family), read_output(family, name), _row(family, name, row), cell, by)
