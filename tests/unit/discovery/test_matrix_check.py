"""The PCIe-tree pairing of each NIC cross-checked against ``nvidia-smi topo -m``'s nearest GPU (the NIC legend
names the RDMA device of each ``NIC<n>``): silent agreement in the comment, a finding when they disagree.

The matrices are real outputs (fixtures/outputs/nvidia-smi-topo, SOURCES.md); the PCIe paths of the node are
built for the test, one PCIe switch per GPU/NIC pair as on an HGX board.
"""

from __future__ import annotations

from dataclasses import replace
from ipaddress import IPv4Interface

import pytest

from pytest_gpufabric.discovery.assemble import Declared, assemble_site
from pytest_gpufabric.discovery.matrix_check import cross_check, nearest_gpus
from pytest_gpufabric.discovery.probe import FoundGpu, FoundNic, FoundPlatform, NodeFacts
from pytest_gpufabric.inventory import SshConfig
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_topo
from pytest_gpufabric.parsers.pci_path import PciDevicePath
from pytest_gpufabric.parsers.topology import TopologyMatrix
from tests.outputs import read_output


def matrix(name: str) -> TopologyMatrix:
    return parse_nvidia_smi_topo(read_output("nvidia-smi-topo", name)).facts


H100 = matrix("sglang_issue30401_h100x8_driver570_nic_pix.txt")


def test_each_nic_of_an_hgx_matrix_is_nearest_to_one_gpu_by_the_legend() -> None:
    for index in range(8):
        view = nearest_gpus(H100, f"mlx5_{index}")
        assert view is not None and (view.label, view.relation, view.nearest) == (f"NIC{index}", "PIX", (index,))
    assert nearest_gpus(H100, "mlx5_8") is None  # a NIC the matrix does not name


@pytest.mark.parametrize(("name", "nic", "relation", "nearest"), [
    ("stelline_rtx6000x4_prompt_expanded_nic_legend.txt", "mlx5_2", "NODE", (2, 3)),  # NIC Legend, tab-expanded
    ("sysuest_v100x4_prompt_before_header_no_numa_column.txt", "mlx5_1", "PIX", (0, 1)),  # driver 418: mlx5 header
    ("gpu_compress_a100x8_tabs_nic_legend.txt", "mlx5_9", "SYS", tuple(range(8))),
])
def test_nearest_gpus_of_other_eras(name: str, nic: str, relation: str, nearest: tuple[int, ...]) -> None:
    view = nearest_gpus(matrix(name), nic)
    assert view is not None and (view.relation, view.nearest) == (relation, nearest)


def test_a_matrix_whose_gpu_row_was_not_read_says_nothing() -> None:
    cut = matrix("nccl_tests_issue78_x16_command_line_cut.txt")  # the GPU4 row is cut: its NIC pairs unknown
    assert cut.unread_pairs() and nearest_gpus(cut, "mlx5_0") is None and cross_check(cut, "mlx5_0", 0) is None


def test_cross_check_words() -> None:
    assert cross_check(H100, "mlx5_3", 3) == ("nvidia-smi topo -m agrees (NIC3 PIX)", False)
    assert cross_check(H100, "mlx5_3", 2) == ("nvidia-smi topo -m: NIC3 (mlx5_3) nearest to GPU3 (PIX), not GPU2: check the pairing", True)
    assert cross_check(H100, "mlx5_3", None) == ("nvidia-smi topo -m: NIC3 (mlx5_3) nearest to GPU3 (PIX)", False)
    tie = matrix("stelline_rtx6000x4_prompt_expanded_nic_legend.txt")
    assert cross_check(tie, "mlx5_0", 1) == ("nvidia-smi topo -m: NIC0 (mlx5_0) nearest to GPU0, GPU1 (NODE): the tree's GPU1 is one of them", False)
    assert cross_check(None, "mlx5_0", 0) is None


def _path(*chain: str) -> PciDevicePath:
    return PciDevicePath("0000:00", chain)


def hgx_node(topology: TopologyMatrix | None) -> NodeFacts:
    """8 GPUs and 8 NICs, GPU k and NIC k below the PCIe switch 0000:1k:00.0 of root port 0000:00:0k.0."""
    gpus = tuple(FoundGpu(k, f"0000:2{k}:00.0", _path(f"0000:00:0{k}.0", f"0000:1{k}:00.0", f"0000:2{k}:00.0"))
                 for k in range(8))
    nics = tuple(
        FoundNic(name=f"mlx5_{k}", netdev=f"ibp{k}s0", rdma=True, addresses=(IPv4Interface(f"192.168.{k + 1}.1/24"),),
                 pci=f"0000:3{k}:00.0", path=_path(f"0000:00:0{k}.0", f"0000:1{k}:00.0", f"0000:3{k}:00.0"),
                 speed_gbps=400, driver="mlx5_core")
        for k in range(8)
    )  # fmt: skip
    return NodeFacts("node01", "10.0.0.1", FoundPlatform("nvidia", "H100", "other", "none"), gpus, nics, topology=topology)


def test_discovery_comments_agreement_and_finds_a_disagreement() -> None:
    declared = Declared("s", "ssh", SshConfig())
    site = assemble_site([hgx_node(H100)], declared, ["hgx-h100-thor2"])
    assert [nic.gpu for nic in site.nodes[0].nics] == list(range(8))
    assert site.comments[("node01", "mlx5_0", "gpu")].endswith("; nvidia-smi topo -m agrees (NIC0 PIX)")
    assert not [f for f in site.findings if "topo -m" in f.message]
    swapped = hgx_node(H100)
    nics = list(swapped.nics)
    nics[0], nics[1] = replace(nics[0], path=nics[1].path), replace(nics[1], path=nics[0].path)  # the tree says 0<->1
    site = assemble_site([replace(swapped, nics=tuple(nics))], declared, ["hgx-h100-thor2"])
    messages = [f.message for f in site.findings if "topo -m" in f.message]
    assert messages == [
        "mlx5_0 paired with GPU 1 by the PCIe tree; nvidia-smi topo -m: NIC0 (mlx5_0) nearest to GPU0 (PIX), not GPU1: check the pairing",
        "mlx5_1 paired with GPU 0 by the PCIe tree; nvidia-smi topo -m: NIC1 (mlx5_1) nearest to GPU1 (PIX), not GPU0: check the pairing",
    ]
    assert site.comments[("node01", "mlx5_0", "gpu")].endswith("not GPU1: check the pairing")


def test_without_the_matrix_the_pairing_comment_is_the_trees() -> None:
    site = assemble_site([hgx_node(None)], Declared("s", "ssh", SshConfig()), ["hgx-h100-thor2"])
    assert "topo -m" not in site.comments[("node01", "mlx5_0", "gpu")]
