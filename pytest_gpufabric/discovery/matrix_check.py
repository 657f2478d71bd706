"""The PCIe-tree pairing of a NIC checked against ``nvidia-smi topo -m``: the matrix's nearest GPU of the NIC.

``nvidia-smi topo -m`` names each NIC ``NIC<n>`` and says which RDMA device that is in its NIC Legend (older
drivers name the device in the header: ``mlx5_0``). Its legend ranks the PCIe relations, nearest first:
``PIX`` (at most one PCIe bridge), ``PXB`` (several bridges, no host bridge), ``PHB`` (a host bridge),
``NODE`` (between host bridges of one NUMA node), ``SYS`` (``SOC`` in older drivers: across the CPU
interconnect). A NIC's nearest GPU is the one GPU of the nearest relation; the check says whether it is the
GPU the PCIe tree paired the NIC with, and is silent where the matrix does not name the NIC or its row was
not read.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.parsers.topology import TopologyMatrix

NEAREST_FIRST = ("PIX", "PXB", "PHB", "NODE", "SYS")
OLDER_NAMES = {"SOC": "SYS"}  # drivers before 384 (nvidia-smi topo -m legend)
MATRIX = "nvidia-smi topo -m"


@dataclass(frozen=True)
class MatrixView:
    """What the matrix says of one NIC: its label, the nearest relation and the GPU indexes at it."""

    label: str
    relation: str
    nearest: tuple[int, ...]

    def names(self) -> str:
        return ", ".join(f"GPU{index}" for index in self.nearest)


def _rank(kind: str) -> int | None:
    kind = OLDER_NAMES.get(kind, kind)
    return NEAREST_FIRST.index(kind) if kind in NEAREST_FIRST else None


def nearest_gpus(matrix: TopologyMatrix, nic: str) -> MatrixView | None:
    """The GPUs of the nearest PCIe relation to the RDMA device ``nic``; None when the matrix does not name it,
    or names a GPU pair of it the parser could not read, or prints a relation outside the legend."""
    label = next((name for name in matrix.devices if not name.startswith("GPU") and matrix.nic_name(name) == nic), None)
    if label is None:
        return None
    ranks: dict[int, int] = {}
    for gpu in matrix.names("GPU"):
        kind = matrix.link(label, gpu)
        rank = None if kind is None else _rank(kind)
        if rank is None:
            return None
        ranks[int(gpu[3:])] = rank
    if not ranks:
        return None
    best = min(ranks.values())
    return MatrixView(label, NEAREST_FIRST[best], tuple(sorted(index for index, rank in ranks.items() if rank == best)))


def cross_check(matrix: TopologyMatrix | None, nic: str, paired: int | None) -> tuple[str, bool] | None:
    """(what the matrix says, whether it disagrees with the PCIe tree's pairing ``paired``) for a comment; None
    when the matrix says nothing of the NIC."""
    view = None if matrix is None else nearest_gpus(matrix, nic)
    if view is None:
        return None
    named = view.label if view.label == nic else f"{view.label} ({nic})"
    said = f"{MATRIX}: {named} nearest to {view.names()} ({view.relation})"
    if paired is None:
        return said, False
    if view.nearest == (paired,):
        return f"{MATRIX} agrees ({view.label} {view.relation})", False
    if paired in view.nearest:
        return f"{said}: the tree's GPU{paired} is one of them", False
    return f"{said}, not GPU{paired}: check the pairing", True
