"""rocm-smi and nvidia-smi parsers."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.nvidia_smi import (
    parse_nvidia_smi_fabric,
    parse_nvidia_smi_nvlink,
    parse_nvidia_smi_query,
    parse_nvidia_smi_topo,
)
from pytest_gpufabric.parsers.rocm_smi import parse_rocm_smi_showbus, parse_rocm_smi_showtopo, parse_rocm_smi_showtopotype


@pytest.mark.parametrize(
    ("name", "gpu0", "gpu7"),
    [("s0_cluster_node.txt", "0000:1b:00.0", "0000:dd:00.0"), ("s0_appendix_b.txt", "0000:1c:00.0", "0000:e6:00.0")],
    ids=["cluster-node-banners", "appendix-b"],
)
def test_rocm_showbus(output, name: str, gpu0: str, gpu7: str) -> None:
    buses = parse_rocm_smi_showbus(output("rocm-smi-showbus", name)).facts
    assert len(buses) == 8 and buses[0] == gpu0 and buses[7] == gpu7


def test_rocm_showbus_cut_off_by_the_page(output) -> None:
    assert len(parse_rocm_smi_showbus(output("rocm-smi-showbus", "s0_no_banner.txt")).facts) == 8


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("WARNING: No AMD GPUs specified\n", "no 'GPU[<n>] : PCI Bus:'"), ("GPU[0]          : PCI Bus: N/A\n", "not a PCI address")],
    ids=["no-gpu", "not-an-address"],
)
def test_malformed_rocm_showbus(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_rocm_smi_showbus, text, "rocm-smi-showbus", fragment)


def test_rocm_showbus_gpu_listed_twice_keeps_the_first(unread_line) -> None:
    parsed = parse_rocm_smi_showbus("GPU[0]          : PCI Bus: 0000:1B:00.0\nGPU[0]          : PCI Bus: 0000:1C:00.0\n")
    assert parsed.facts == {0: "0000:1b:00.0"}
    unread_line(parsed, "0000:1C:00.0", "listed twice")


@pytest.mark.parametrize("name", ["s0_single_node.txt", "s0_cluster_node.txt"], ids=["single-node", "cluster-node"])
def test_rocm_showtopotype_all_xgmi(output, name: str) -> None:
    topology = parse_rocm_smi_showtopotype(output("rocm-smi-showtopotype", name)).facts
    pairs = topology.pairs()
    assert len(pairs) == 28 and {link for _, _, link in pairs} == {"XGMI"}
    assert topology.link("GPU3", "GPU3") == "0"


def test_rocm_showtopotype_truncated_leaves_the_pairs_of_its_missing_rows_unread(output) -> None:
    lines = output("rocm-smi-showtopotype", "s0_single_node.txt").splitlines()
    topology = parse_rocm_smi_showtopotype("\n".join(lines[:6]) + "\n").facts
    assert ("GPU3", "GPU4") in topology.unread_pairs() and topology.link("GPU0", "GPU3") == "XGMI"


@pytest.mark.parametrize(
    "name", ["h200x2_pipe.txt", "h200x2_tty_ansi_crlf.txt"], ids=["piped-underline-escape", "terminal-ansi-crlf"]
)
def test_nvidia_topo(output, name: str) -> None:
    topology = parse_nvidia_smi_topo(output("nvidia-smi-topo", name)).facts
    assert topology.devices == ("GPU0", "GPU1")
    assert topology.pairs() == (("GPU0", "GPU1", "NV18"),)
    assert topology.extra["GPU1"] == {"CPU Affinity": "0-31", "NUMA Affinity": "0", "GPU NUMA ID": "N/A"}


def test_nvidia_topo_with_nics_pasted_with_spaces() -> None:
    text = (
        "        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      NV18    PIX     0-15    0\n"
        "GPU1    NV18     X      SYS     0-15    0\n"
        "NIC0    PIX     SYS      X\n\nNIC Legend:\n\n  NIC0: bnxt_re0\n"
    )
    topology = parse_nvidia_smi_topo(text).facts
    assert topology.link("GPU0", "NIC0") == "PIX" and topology.link("NIC0", "GPU1") == "SYS"


def test_nvidia_topo_ocr_damaged_document_copy(output, parse_error) -> None:
    parse_error(parse_nvidia_smi_topo, output("nvidia-smi-topo", "s1_h100x8_ocr.txt"), "no column header of GPU/NIC names", "GPU®@")


def test_nvidia_topo_truncated_still_knows_the_pair_from_the_row_it_has(output) -> None:
    first_two_lines = "".join(output("nvidia-smi-topo", "h200x2_pipe.txt").splitlines(keepends=True)[:2])
    topology = parse_nvidia_smi_topo(first_two_lines).facts
    assert topology.pairs() == (("GPU0", "GPU1", "NV18"),) and "GPU1" not in topology.links


def test_nvlink_status(output) -> None:
    gpus = parse_nvidia_smi_nvlink(output("nvidia-smi-nvlink", "h200x2_nvlink_s.txt")).facts
    assert [gpu.index for gpu in gpus] == [0, 1]
    assert gpus[0].name == "NVIDIA H200" and gpus[0].uuid.startswith("GPU-")
    assert len(gpus[1].active_links) == 18 and set(gpus[1].links.values()) == {26.562}


def test_nvlink_inactive_links() -> None:
    (gpu,) = parse_nvidia_smi_nvlink("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n").facts
    assert gpu.links == {0: 26.562, 1: None} and gpu.active_links == (0,)


def test_nvlink_driver_not_loaded(parse_error) -> None:
    parse_error(parse_nvidia_smi_nvlink, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
                "nvidia-smi-nvlink", "expected 'GPU <n>: <name>'")


def test_nvlink_bad_speed_costs_that_link(unread_line) -> None:
    parsed = parse_nvidia_smi_nvlink("GPU 0: NVIDIA H200 (UUID: GPU-1)\n\t Link 0: fast\n\t Link 1: 26.562 GB/s\n")
    assert parsed.facts[0].links == {1: 26.562}
    unread_line(parsed, "Link 0", "is not '<n> GB/s'")


def test_fabric_state_of_every_gpu(output) -> None:
    fabrics = parse_nvidia_smi_fabric(output("nvidia-smi-q-fabric", "h200x2_q.txt")).facts
    assert [(f.bus_id, f.state, f.status) for f in fabrics] == [
        ("0000:00:06.0", "Completed", "Success"), ("0000:00:07.0", "Completed", "Success")]


def test_fabric_section_flattened_by_the_document_reports_missing_fields(output) -> None:
    (fabric,) = parse_nvidia_smi_fabric(output("nvidia-smi-q-fabric", "s1_grep_fabric_ocr.txt")).facts
    assert (fabric.bus_id, fabric.state, fabric.status) == (None, None, None)


def test_fabric_missing(parse_error) -> None:
    parse_error(parse_nvidia_smi_fabric, "==============NVSMI LOG==============\n\nAttached GPUs : 0\n", "no 'Fabric' section")


def test_query_gpu(output) -> None:
    rows = parse_nvidia_smi_query(output("nvidia-smi-query-gpu", "h200x2_index_busid_name_driver.txt")).facts
    assert [(row.index, row.bus_id) for row in rows] == [(0, "0000:00:06.0"), (1, "0000:00:07.0")]
    assert rows[0].values["driver_version"] == "580.159.04"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("0, 00000000:00:06.0\n", "no CSV header"), ("index, pci.bus_id\n", "no CSV header of query fields and GPU rows"),
     ("index, pci.bus_id\n0, 00000000:00:06.0, extra\n", "expected 2 values"), ("index, pci.bus_id\n0, [N/A]\n", "not a PCI address")],
    ids=["noheader", "header-only", "extra-column", "bad-bus-id"],
)
def test_malformed_query_gpu(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_nvidia_smi_query, text, "nvidia-smi-query-gpu", fragment)


def test_nvidia_topo_after_a_prompt_line(output) -> None:
    topology = parse_nvidia_smi_topo(output("nvidia-smi-topo", "sysuest_a100x2_prompt_before_header.txt")).facts
    assert topology.pairs() == (("GPU0", "GPU1", "NODE"),)
    assert topology.link("GPU0", "mlx5_0") == "NODE"
    assert topology.extra["GPU1"] == {"CPU Affinity": "32-63", "NUMA Affinity": "1"}


def test_nvidia_topo_after_a_prompt_line_older_columns(output) -> None:
    topology = parse_nvidia_smi_topo(output("nvidia-smi-topo", "sysuest_v100x4_prompt_before_header_no_numa_column.txt")).facts
    assert topology.devices[:4] == ("GPU0", "GPU1", "GPU2", "GPU3") and len(topology.devices) == 8
    assert (topology.link("GPU0", "GPU1"), topology.link("GPU0", "GPU2"), topology.link("GPU0", "GPU3")) == ("NV2", "NV1", "NODE")
    assert topology.link("GPU2", "mlx5_3") == "PIX" and topology.extra["GPU3"] == {"CPU Affinity": "14-27"}


def test_nvidia_topo_after_a_prompt_line_cut_short(output) -> None:
    text = output("nvidia-smi-topo", "sysuest_v100x4_prompt_before_header_no_numa_column.txt")
    topology = parse_nvidia_smi_topo(text[: text.index("GPU3    NODE")]).facts
    assert topology.unread_pairs() == () and "GPU3" not in topology.links  # GPU3's pairs come from the other rows
    assert topology.link("GPU3", "mlx5_3") is None


def test_nvidia_topo_inside_a_markdown_fence(output) -> None:
    topology = parse_nvidia_smi_topo(output("nvidia-smi-topo", "club3090_issue46_x5_fenced.txt")).facts
    assert topology.devices == ("GPU0", "GPU1", "GPU2", "GPU3", "GPU4")
    assert topology.link("GPU1", "GPU2") == "PHB" and topology.link("GPU0", "GPU4") == "SYS"
    assert topology.extra["GPU0"] == {"CPU Affinity": "8-15,24-31", "NUMA Affinity": "1", "GPU NUMA ID": "N/A"}


def test_nvidia_topo_title_line_before_the_header(output) -> None:
    text = "NVIDIA Topology:\n" + output("nvidia-smi-topo", "h200x2_pipe.txt")
    assert parse_nvidia_smi_topo(text).facts.pairs() == (("GPU0", "GPU1", "NV18"),)


def test_nvidia_topo_command_line_then_cut_off(output, unread_line) -> None:
    parsed = parse_nvidia_smi_topo(output("nvidia-smi-topo", "nccl_tests_issue78_x16_command_line_cut.txt"))
    assert sorted(parsed.facts.links) == ["GPU0", "GPU1", "GPU2", "GPU3"]
    assert ("GPU5", "GPU6") in parsed.facts.unread_pairs()
    unread_line(parsed, "GPU4", "no line end")  # cut inside its CPU affinity: '0-23,4' is not read


@pytest.mark.parametrize(("name", "gpus", "numa"), [
    ("archer2_mi210x4_xgmi.txt", 4, {0: 0, 1: 1, 2: 2, 3: 3}),
    ("ms_swift_amd_x8_low_power_warning.txt", 8, {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 1}),
])
def test_rocm_showtopo_all_tables(output, name: str, gpus: int, numa: dict[int, int]) -> None:
    topology = parse_rocm_smi_showtopo(output("rocm-smi-showtopo", name)).facts
    assert len(topology.link_type.devices) == gpus
    assert {link for _, _, link in topology.link_type.pairs()} == {"XGMI"}
    assert {weight for _, _, weight in topology.weight.pairs()} == {"15"}
    assert {hops for _, _, hops in topology.hops.pairs()} == {"1"}
    assert topology.access is None
    assert topology.numa_node == numa == topology.numa_affinity


def test_rocm_showtopo_reads_a_showtopotype_output_too(output) -> None:
    topology = parse_rocm_smi_showtopo(output("rocm-smi-showtopotype", "s0_single_node.txt")).facts
    assert topology.weight is None and len(topology.link_type.pairs()) == 28


def test_rocm_showtopo_truncated_inside_a_table(output) -> None:
    text = output("rocm-smi-showtopo", "archer2_mi210x4_xgmi.txt")
    topology = parse_rocm_smi_showtopo(text[: text.index("GPU3   1            1 ")]).facts
    assert sorted(topology.hops.links) == ["GPU0", "GPU1", "GPU2"] and topology.link_type is None


def test_rocm_showtopo_bad_numa_line(output, unread_line) -> None:
    text = output("rocm-smi-showtopo", "archer2_mi210x4_xgmi.txt").replace("Numa Node: 2", "Numa Node: two")
    parsed = parse_rocm_smi_showtopo(text)
    unread_line(parsed, "Numa Node: two", "expected a whole number")
    assert 2 not in parsed.facts.numa_node and parsed.facts.numa_affinity[2] == 2


def test_nvidia_topo_preamble_of_capped_nic_columns_costs_nothing(output) -> None:
    """Drivers that cap the NIC columns print 'N NICs found, only displaying M' before the header (the line as the
    project's issue quotes it; no public capture found): a known line, the matrix read as without it."""
    text = output("nvidia-smi-topo", "sglang_issue30401_h100x8_driver570_nic_pix.txt")
    capped = parse_nvidia_smi_topo("10 NICs found, only displaying 8\n" + text)
    assert capped.unread == () and capped.facts == parse_nvidia_smi_topo(text).facts
