"""Installed versions per node, as the checks read them from each node's outputs (driver, firmware, GPU
stack) and as the collective runs printed them (NCCL/RCCL); values that differ from the majority of the
nodes of the same kind are the odd ones out."""

from __future__ import annotations

from typing import Any

import pandas as pd

from pytest_gpufabric.reporting.acceptance.model import nodes_of

# (check id, measurement name) -> column; any other string-valued "*version*" measurement gets its own column.
KNOWN_VERSIONS = {
    ("DRV-001", "version"): "bnxt_en driver",
    ("DRV-002", "version"): "bnxt_re driver",
    ("DRV-004", "firmware_version"): "NIC firmware",
    ("DRV-008", "rocm_core"): "ROCm (rocm-core)",
    ("DRV-008", "nvidia_driver"): "NVIDIA driver",
    ("DRV-008", "cuda_version"): "CUDA",
}
COLLECTIVE_LIBRARY = "NCCL / RCCL (tests)"


def _column(check_id: str, name: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    known = KNOWN_VERSIONS.get((check_id, name))
    if known:
        return known
    return f"{name} ({check_id})" if "version" in name else None


def version_table(records: list[dict[str, Any]], curves: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Node x component: the versions found (several NICs with different firmware are joined), and where
    they are odd: the check judged them wrong, or they differ from the majority of their column."""
    found: dict[tuple[str, str], set[str]] = {}
    judged_wrong: set[tuple[str, str]] = set()
    for record in records:
        nodes = nodes_of(record.get("item"))
        if len(nodes) != 1:
            continue
        for m in record.get("measurements") or ():
            column = _column(str(record.get("check_id")), str(m.get("name")), m.get("measured"))
            if column:
                found.setdefault((nodes[0], column), set()).add(str(m["measured"]))
                if not m.get("passed", True):
                    judged_wrong.add((nodes[0], column))
    if not curves.empty:
        single_node = curves[curves["run"] == curves["node"]].dropna(subset=["nccl_version"])
        for node, version in single_node[["node", "nccl_version"]].drop_duplicates().itertuples(index=False):
            found.setdefault((str(node), COLLECTIVE_LIBRARY), set()).add(str(version))
    if not found:
        return pd.DataFrame(), pd.DataFrame()
    table = pd.Series({key: ", ".join(sorted(values)) for key, values in found.items()}).unstack()
    ordered = [c for c in [*KNOWN_VERSIONS.values(), COLLECTIVE_LIBRARY] if c in table.columns]
    table = table[ordered + sorted(c for c in table.columns if c not in ordered)]
    table.index.name = "node"
    table = table.sort_index()
    odd = _odd_ones_out(table)
    for node, column in judged_wrong:
        odd.loc[node, column] = True
    return table, odd


def _odd_ones_out(table: pd.DataFrame) -> pd.DataFrame:
    """True where a node's value differs from the most common value of its column (columns with >= 3 nodes)."""
    odd = pd.DataFrame(False, index=table.index, columns=table.columns)
    for column in table.columns:
        values = table[column].dropna()
        if len(values) < 3:
            continue
        counts = values.value_counts()
        if len(counts) > 1 and counts.iloc[0] > counts.iloc[1]:
            odd.loc[values.index, column] = values != counts.index[0]
    return odd
