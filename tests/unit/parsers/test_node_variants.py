"""The variants of the parsing rule on real node-tool outputs: what the field does to an output (tabs for spaces
at 8-column stops, trailing whitespace, CRLF, blank and warning lines) leaves the facts unchanged, and a fused
or shifted cell refuses its row, never changing a value (tests/variants.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_gpufabric.parsers.amd_smi import parse_amd_smi_list, parse_amd_smi_topology, parse_amd_smi_xgmi
from pytest_gpufabric.parsers.ibdev2netdev import parse_ibdev2netdev
from pytest_gpufabric.parsers.ip import parse_ip_addr
from pytest_gpufabric.parsers.lldp import parse_lldpctl_keyvalue
from pytest_gpufabric.parsers.nccl_tests import parse_nccl_tests
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_topo
from pytest_gpufabric.parsers.rdma import parse_rdma_link
from pytest_gpufabric.parsers.rocm_smi import parse_rocm_smi_showbus, parse_rocm_smi_showtopo
from pytest_gpufabric.parsers.textutil import strip_ansi
from tests.outputs import read_output
from tests.variants import (
    END,
    WARNING_LINES,
    assert_fused_cell_refused,
    assert_same_facts,
    assert_shift_never_misreads,
    flat,
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
]
# Lines of key and value, or prose: a value may hold a single space a tab must not replace.
LINES = [
    (parse_lldpctl_keyvalue, "lldpctl-keyvalue", "netbox_agent_dedibox2.txt"),
    (parse_ip_addr, "ip-addr", "threefs_issue263_ip_addr.txt"),
    (parse_rocm_smi_showbus, "rocm-smi-showbus", "legacy_rocm_build_issue1715_rocm_smi_a_excerpt.txt"),
    (parse_amd_smi_list, "amd-smi-list", "changelog_kfd_ids_2gpu.txt"),
    (parse_nccl_tests, "nccl-tests", "aws_do_eks_p5_single_node_mpirun_tag_output.txt"),
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


@st.composite
def _line_variants(draw: st.DrawFn, text: str) -> str:
    """Trailing whitespace, CRLF, a blank or warning line first or last: no tab inside a value."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    if draw(st.booleans()):
        lines = [line + draw(st.sampled_from(["", " ", "\t", "  "])) for line in lines]
    for place in (len(lines), 0):
        if draw(st.booleans()):
            lines.insert(place, draw(st.sampled_from(["", *WARNING_LINES])))
    end = "\r\n" if draw(st.booleans()) else "\n"
    return end.join(lines) + end


@pytest.mark.parametrize(("parse", "family", "name"), LINES, ids=_ids(LINES))
@given(data=st.data())
@VARIANTS
def test_line_variants_give_the_same_facts(parse: Parse, family: str, name: str, data: st.DataObject) -> None:
    text = read_output(family, name)
    assert_same_facts(parse, text, data.draw(_line_variants(text)))


@pytest.mark.parametrize(("family", "name", "row_line", "cell"), [
    ("nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt", 3, 1),  # GPU0: its X into NODE
    ("nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt", 5, 4),  # GPU2: NODE into SYS
    ("nvidia-smi-topo", "gpu_compress_a100x8_tabs_nic_legend.txt", 2, 8),  # GPU0: its last NV12 into PXB
])
def test_a_fused_matrix_cell_refuses_its_row(family: str, name: str, row_line: int, cell: int) -> None:
    assert_fused_cell_refused(parse_nvidia_smi_topo, read_output(family, name).expandtabs(8), row_line, cell)


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


def test_fused_cells_pasted_as_the_issue_shows_refuse_the_row() -> None:
    """'NODENODE' and 'NODEPIX': a pasted GPU row with one cell too many is refused, never shifted."""
    text = read_output("nvidia-smi-topo", "stelline_rtx6000x4_prompt_expanded_nic_legend.txt")
    lines = text.split("\n")
    lines[2] = lines[2].replace("NODE    SYS     SYS     NODE    NODE", "NODE    SYS     SYS     NODENODE", 1)
    parsed = parse_nvidia_smi_topo("\n".join(lines))
    assert "GPU0" not in parsed.facts.links and any(u.line == 3 for u in parsed.unread)
