"""How a node's GPUs reach each other, for the machine shape its documented values depend on: NVSwitch (every
pair on NVLink, and the GPUs registered with an NVSwitch fabric), NVLink (every pair on NVLink, no fabric),
XGMI (every pair of AMD GPUs on XGMI), else PCIe. Read with the commands the GPU checks run (GPU-002, GPU-004)."""

from __future__ import annotations

import re

from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.errors import RecordingError
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_fabric, parse_nvidia_smi_topo
from pytest_gpufabric.parsers.rocm_smi import parse_rocm_smi_showtopotype
from pytest_gpufabric.parsers.topology import TopologyMatrix

NVIDIA_TOPOLOGY = "nvidia-smi topo -m"
NVIDIA_QUERY = "nvidia-smi -q"
AMD_TOPOLOGY = "rocm-smi --showtopotype"
_NVLINK = re.compile(r"^NV\d+$")
NO_FABRIC = frozenset({None, "N/A"})  # nvidia-smi -q Fabric State of a GPU outside any NVSwitch fabric


def nvidia_link(matrix: TopologyMatrix, fabric_states: set[str | None]) -> str | None:
    pairs = matrix.pairs("GPU")
    if not pairs:
        return None
    if not all(_NVLINK.match(kind) for _, _, kind in pairs):
        return "pcie"
    return "nvlink" if fabric_states <= NO_FABRIC else "nvswitch"


def amd_link(matrix: TopologyMatrix) -> str | None:
    pairs = matrix.pairs("GPU")
    if not pairs:
        return None
    return "xgmi" if all(kind == "XGMI" for _, _, kind in pairs) else "pcie"


def read_gpu_link(reader: NodeReader, vendor: str, gpus: int) -> str | None:
    """The node's GPU link, or None (one GPU, no GPU, or a tool that did not answer: noted by the reader; a
    recording made before discovery read the GPU link has none of its commands: noted too)."""
    if gpus < 2:
        return None
    try:
        return _read(reader, vendor)
    except RecordingError as exc:
        reader.notes.append(f"GPU link not read: {exc.reason}")
        return None


def _read(reader: NodeReader, vendor: str) -> str | None:
    if vendor == "amd":
        matrix = reader.answer(AMD_TOPOLOGY, parse_rocm_smi_showtopotype)
        return None if matrix is None else amd_link(matrix)
    if vendor != "nvidia":
        return None
    matrix = reader.answer(NVIDIA_TOPOLOGY, parse_nvidia_smi_topo)
    if matrix is None:
        return None
    fabrics = reader.answer(NVIDIA_QUERY, parse_nvidia_smi_fabric)
    if fabrics is None:
        return None
    return nvidia_link(matrix, {fabric.state for fabric in fabrics})
