"""GPUs (GPU-*): bus IDs against the inventory, scale-up links between every GPU pair."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pytest_gpufabric.parsers.topology import TopologyMatrix

_NVLINK = re.compile(r"^NV(\d+)$")


def normalize_bdf(bus_id: str) -> str:
    """``00000000:1C:00.0`` (nvidia-smi) or ``0000:1C:00.0`` -> ``0000:1c:00.0``."""
    domain, _, rest = bus_id.strip().lower().partition(":")
    return f"{int(domain, 16):04x}:{rest}" if rest else bus_id.strip().lower()


def bus_mismatches(inventory: Mapping[int, str], measured: Mapping[int, str]) -> list[str]:
    """GPU indexes whose bus ID differs from the inventory, or that only one side lists."""
    problems = []
    for index in sorted(set(inventory) | set(measured)):
        want, got = inventory.get(index), measured.get(index)
        if want is None or got is None or normalize_bdf(want) != normalize_bdf(got):
            problems.append(f"GPU{index}: {got or 'absent'} (inventory {want or 'absent'})")
    return problems


def unread_gpu_pairs(matrix: TopologyMatrix) -> str:
    """The GPU pairs whose link no row of the matrix gave (both rows refused or cut), for a missing
    measurement's message; "" when every pair was read."""
    unread = matrix.unread_pairs("GPU")
    return ", ".join(f"{a}-{b}" for a, b in unread[:8]) + (f" and {len(unread) - 8} more" if len(unread) > 8 else "")


def weakest_gpu_links(matrix: TopologyMatrix) -> tuple[int | None, list[str]]:
    """For ``nvidia-smi topo -m``: the smallest NVLink count between any two GPUs (0 when a pair is not
    NVLink-connected), and the pairs that are not, with their connection type; None when a pair was not read
    (a missing measurement, never a pass)."""
    if matrix.unread_pairs("GPU"):
        return None, [f"links not read: {unread_gpu_pairs(matrix)}"]
    counts, problems = [], []
    for first, second, kind in matrix.pairs("GPU"):
        match = _NVLINK.match(kind)
        counts.append(int(match.group(1)) if match else 0)
        if not match:
            problems.append(f"{first}-{second}: {kind}")
    return (min(counts) if counts else 0), problems


def non_xgmi_pairs(matrix: TopologyMatrix) -> list[str] | None:
    """For ``rocm-smi --showtopotype``: the GPU pairs whose link type is not XGMI; None when a pair was not read."""
    if matrix.unread_pairs("GPU"):
        return None
    return [f"{a}-{b}: {kind}" for a, b, kind in matrix.pairs("GPU") if kind != "XGMI"]
