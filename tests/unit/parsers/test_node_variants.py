"""The variants of the parsing rule on real node-tool outputs: what the field does to an output (tabs for spaces
at 8-column stops, trailing whitespace, CRLF, blank and warning lines) leaves the facts unchanged, and a fused
or shifted cell refuses its row, never changing a value (tests/variants.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_gpufabric.parsers.amd_smi import parse_amd_smi_list, parse_amd_smi_metric, parse_amd_smi_topology, parse_amd_smi_xgmi
from pytest_gpufabric.parsers.ethtool import parse_ethtool, parse_ethtool_driver
from pytest_gpufabric.parsers.ibdev2netdev import parse_ibdev2netdev
from pytest_gpufabric.parsers.ip import parse_ip_addr, parse_ip_route
from pytest_gpufabric.parsers.lldp import parse_lldpctl_keyvalue
from pytest_gpufabric.parsers.nccl_tests import parse_nccl_tests
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_topo
from pytest_gpufabric.parsers.rdma import parse_rdma_link
from pytest_gpufabric.parsers.rocm_smi import parse_rocm_smi_showbus, parse_rocm_smi_showtopo
from pytest_gpufabric.parsers.textutil import strip_ansi
from tests.outputs import read_output
from tests.variants import (
    END,
    assert_fused_cell_read_or_refused,
    assert_fused_cell_refused,
    assert_same_facts,
    assert_shift_never_misreads,
    flat,
    line_variants,
    row_cells,
    same_facts_variants,
)

VARIANTS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
Parse = Callable[[str], Any]

# Tables: every variant, tabs for spaces included (a table's cells hold no run of spaces a tab could stand for).
TABLES = [
    (parse_nvidia_smi_topo, "nvidia-smi-topo", "h200x2_pipe.txt"),
    (parse_nvidia_smi_topo, "nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt"),
    (parse_nvidia_smi_topo, "nvidia-smi-topo", "gpu_compress_a100x8_tabs_nic_legend.txt"),
    (parse_rocm_smi_showtopo, "rocm-smi-showtopo", "rocm_smi_lib_issue108_4gpu_pcie_cut.txt"),
    (parse_rocm_smi_showtopo, "rocm-smi-showtopo", "archer2_mi210x4_xgmi.txt"),
    (parse_amd_smi_topology, "amd-smi-topology", "changelog_8gpu_xgmi_all_tables.txt"),
    (parse_amd_smi_xgmi, "amd-smi-xgmi", "rocm_blog_mi300x_short_bdf_cut.txt"),
    (parse_rdma_link, "rdma-link", "pmem_shuffle_iproute2_old_form_iwarp.txt"),
    (parse_ibdev2netdev, "ibdev2netdev", "imbue_issue4_column_t.txt"),
    (parse_nvidia_smi_topo, "nvidia-smi-topo", "go_gpuallocator_issue17_rtx4090x8_tabs.txt"),
    (parse_nvidia_smi_topo, "nvidia-smi-topo", "sglang_issue11208_gb200x4_numa_lists_excerpt.txt"),
    (parse_nvidia_smi_topo, "nvidia-smi-topo", "nccl_issue2157_a100x8_18nics_unindented_header_excerpt.txt"),
    (parse_nvidia_smi_topo, "nvidia-smi-topo", "club3090_issue1125_indented_wrapped_legend.txt"),
    (parse_rocm_smi_showtopo, "rocm-smi-showtopo", "rccl_issue538_mi100x4_pcie_numa7.txt"),
]
# Lines of key and value, or prose: a value may hold a single space a tab must not replace.
LINES = [
    (parse_lldpctl_keyvalue, "lldpctl-keyvalue", "netbox_agent_dedibox2.txt"),
    (parse_ip_addr, "ip-addr", "threefs_issue263_ip_addr.txt"),
    (parse_rocm_smi_showbus, "rocm-smi-showbus", "legacy_rocm_build_issue1715_rocm_smi_a_excerpt.txt"),
    (parse_amd_smi_list, "amd-smi-list", "changelog_kfd_ids_2gpu.txt"),
    (parse_nccl_tests, "nccl-tests", "aws_do_eks_p5_single_node_mpirun_tag_output.txt"),
    (parse_nccl_tests, "nccl-tests", "aws_do_eks_gpu_efa_p4d_tag_output_indented.txt"),
    (parse_ethtool, "ethtool", "aqc111_issue1_synology_eth2_prompt.txt"),
    (parse_ethtool_driver, "ethtool-i", "ethq_issue21_mlx4_en_trailing_spaces.txt"),
    (parse_ip_addr, "ip-addr", "devhost_netns_ip_br_addr.txt"),
    (parse_amd_smi_metric, "amd-smi-metric", "changelog_usage_xcp_wrapped_lists.txt"),
    (parse_ip_route, "ip-route", "devhost_netns_main_multipath_blackhole.txt"),
]


def _ids(cases: list[tuple[Parse, str, str]]) -> list[str]:
    return [f"{family}/{name}" for _, family, name in cases]


@pytest.mark.parametrize(("parse", "family", "name"), TABLES, ids=_ids(TABLES))
@given(data=st.data())
@VARIANTS
def test_table_variants_give_the_same_facts(parse: Parse, family: str, name: str, data: st.DataObject) -> None:
    # ANSI escapes take no column on a terminal: a copy that expanded the tabs holds none (nvidia-smi underlines its
    # header even into a pipe)
    text = strip_ansi(read_output(family, name))
    assert_same_facts(parse, text, data.draw(same_facts_variants(text, insert_at=(0, END))))




@pytest.mark.parametrize(("parse", "family", "name"), LINES, ids=_ids(LINES))
@given(data=st.data())
@VARIANTS
def test_line_variants_give_the_same_facts(parse: Parse, family: str, name: str, data: st.DataObject) -> None:
    text = read_output(family, name)
    assert_same_facts(parse, text, data.draw(line_variants(text)))


@pytest.mark.parametrize(("family", "name", "row_line", "cell"), [
    ("nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt", 3, 1),  # GPU0: its X into NODE
    ("nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt", 5, 4),  # GPU2: NODE into SYS
    ("nvidia-smi-topo", "gpu_compress_a100x8_tabs_nic_legend.txt", 2, 8),  # GPU0: its last NV12 into PXB
    ("nvidia-smi-topo", "gpu_compress_a100x8_tabs_nic_legend.txt", 2, 18),  # GPU0: its last NIC cell into its CPUs
    ("nvidia-smi-topo", "nccl_issue2157_a100x8_18nics_unindented_header_excerpt.txt", 3, 12),  # read by its words
    ("nvidia-smi-topo", "club3090_issue1125_indented_wrapped_legend.txt", 2, 1),  # GPU0: its X into NODE
    ("nvidia-smi-topo", "club3090_issue1125_indented_wrapped_legend.txt", 2, 3),  # GPU0: CPUs into its NUMA node
])
def test_a_fused_matrix_cell_is_read_by_the_legend_words_or_refuses_its_row(family: str, name: str, row_line: int, cell: int) -> None:
    """Cells of ``topo -m`` are legend words: two of them fused split in one way only (as driver 550 prints
    some of them, ``NODENODE``); a cell fused with anything else refuses the row. Never a different value."""
    assert_fused_cell_read_or_refused(parse_nvidia_smi_topo, read_output(family, name).expandtabs(8), row_line, cell)


def test_a_fused_cpu_list_refuses_its_row() -> None:
    """``0-31,64-950``: a CPU list fused with the NUMA node after it looks like a CPU list; the row then lacks one
    value and is refused."""
    text = read_output("nvidia-smi-topo", "club3090_issue1125_indented_wrapped_legend.txt")
    line = text.split("\n")[1]
    assert_fused_cell_refused(parse_nvidia_smi_topo, text, 2, row_cells(line) - 3)


@pytest.mark.parametrize(("parse", "family", "name", "row_line", "cell"), [
    (parse_rocm_smi_showtopo, "rocm-smi-showtopo", "archer2_mi210x4_xgmi.txt", 4, 2),
    (parse_amd_smi_topology, "amd-smi-topology", "changelog_8gpu_xgmi_all_tables.txt", 3, 3),  # ACCESS 0c: ENABLED into ENABLED
])
def test_a_fused_cell_of_amd_matrices_refuses_its_row(parse: Parse, family: str, name: str, row_line: int, cell: int) -> None:
    assert_fused_cell_refused(parse, read_output(family, name), row_line, cell)


@pytest.mark.parametrize("by", [-5, -3, 3, 5])
@pytest.mark.parametrize("cell", [1, 3, 5])
def test_a_shifted_matrix_cell_is_never_misread(by: int, cell: int) -> None:
    text = read_output("nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt")
    assert_shift_never_misreads(parse_nvidia_smi_topo, text, 4, cell, by)


def test_the_issues_cpu_affinity_touching_its_numa_node_is_two_cells() -> None:
    """A tab-expanded copy of an A100 matrix: '112-127,240-255' is 15 wide, its tab stop is one column away, so
    the copy reads '112-127,240-255 7' (ISSUE: it was read as one CPU affinity and NUMA N/A)."""
    text = read_output("nvidia-smi-topo", "gpu_compress_a100x8_tabs_nic_legend.txt")
    expanded = text.expandtabs(8)
    assert "112-127,240-255 7" in expanded
    topology = parse_nvidia_smi_topo(expanded).facts
    assert topology.extra["GPU4"] == {"CPU Affinity": "112-127,240-255", "NUMA Affinity": "7"}
    assert flat(parse_nvidia_smi_topo(expanded)) == flat(parse_nvidia_smi_topo(text))


def test_fused_cells_pasted_as_the_issue_shows_are_read_never_shifted() -> None:
    """'NODENODE': the two legend words it is made of, in their columns; a GPU row with one cell too many is
    refused, never shifted."""
    text = read_output("nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt")
    lines = text.split("\n")
    fused = list(lines)
    fused[2] = lines[2].replace("NODE    SYS     SYS     NODE    NODE", "NODE    SYS     SYS     NODENODE", 1)
    assert flat(parse_nvidia_smi_topo("\n".join(fused))) == flat(parse_nvidia_smi_topo(text))
    longer = list(lines)
    longer[2] = lines[2].replace("NODE    SYS     SYS     NODE    NODE", "NODE    SYS     SYS     NODE    NODE    NODE", 1)
    parsed = parse_nvidia_smi_topo("\n".join(longer))
    assert "GPU0" not in parsed.facts.links and any(u.line == 3 for u in parsed.unread)
