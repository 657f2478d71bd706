"""Figures of the report, drawn with matplotlib's Agg canvas (no display, no pyplot state) as PNG bytes."""

from __future__ import annotations

import base64
import io
import math

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

DPI = 96
MISSING_COLOUR = "#eeeeee"
FAILED_MARK = "#000000"
MAX_LABELLED_NODES = 48  # above this only every k-th node is labelled


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)  # no bbox_inches="tight": it draws the figure twice
    return buffer.getvalue()


def pair_matrix(pairs: pd.DataFrame, nodes: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric node x node matrices of one heatmap: the value (NaN where no pair) and failed flags."""
    index = {node: i for i, node in enumerate(nodes)}
    values = np.full((len(nodes), len(nodes)), np.nan)
    failed = np.zeros((len(nodes), len(nodes)), dtype=bool)
    a = pairs["node_a"].map(index).to_numpy()
    b = pairs["node_b"].map(index).to_numpy()
    v = pairs["value"].to_numpy(dtype=float)
    bad = ~pairs["passed"].to_numpy(dtype=bool)
    for rows, cols in ((a, b), (b, a)):
        values[rows, cols] = v
        failed[rows, cols] = bad
    return values, failed


def _ticks(axis_labels: list[str]) -> tuple[list[int], list[str]]:
    step = max(1, math.ceil(len(axis_labels) / MAX_LABELLED_NODES))
    positions = list(range(0, len(axis_labels), step))
    return positions, [axis_labels[i] for i in positions]


def heatmap_png(values: np.ndarray, failed: np.ndarray, nodes: list[str], *, title: str, unit: str,
                threshold: float | None, expected: str, lower_is_better: bool) -> bytes:
    """Node x node heatmap: red below (or above, for latency) the threshold, green past it; failed cells crossed."""
    size = min(2.6 + 0.1 * len(nodes), 10.0)
    figure = Figure(figsize=(size + 1.6, size + 0.9), layout="constrained")
    axes = figure.add_subplot()
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    cmap = colormaps["RdYlGn_r" if lower_is_better else "RdYlGn"].with_extremes(bad=MISSING_COLOUR)
    norm = None
    if threshold is not None:
        centre = float(threshold)
        low, high = min(low, centre * 0.98), max(high, centre * 1.02)
        norm = TwoSlopeNorm(vmin=low, vcenter=centre, vmax=high)
    masked = np.ma.masked_invalid(values)
    image = axes.imshow(masked, cmap=cmap, norm=norm, interpolation="nearest", aspect="equal")
    rows, cols = np.nonzero(failed)
    if rows.size:
        axes.scatter(cols, rows, marker="x", s=max(8.0, 900.0 / max(len(nodes), 1)), c=FAILED_MARK,
                     linewidths=1.2, label="failed")
        axes.legend(loc="upper right", bbox_to_anchor=(1.0, 1.12), fontsize=8, frameon=False)
    positions, labels = _ticks(nodes)
    axes.set_xticks(positions, labels, rotation=90, fontsize=7)
    axes.set_yticks(positions, labels, fontsize=7)
    axes.set_title(title, fontsize=10)
    bar = figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)
    bar.set_label(f"{unit}; threshold {expected}", fontsize=8)
    if threshold is not None:
        bar.ax.axhline(float(threshold), color="black", linewidth=1.5)
    return _png(figure)


def busbw_png(curves: pd.DataFrame, *, title: str, threshold: float | None) -> bytes:
    """Bus bandwidth vs message size, log x axis, one line per run, the threshold drawn."""
    figure = Figure(figsize=(8.0, 4.5), layout="constrained")
    axes = figure.add_subplot()
    for label, curve in curves.groupby("label", sort=True):
        curve = curve.sort_values("size_bytes")
        axes.plot(curve["size_bytes"], curve["busbw_gbs"], marker=".", linewidth=1.2, label=str(label))
    if threshold is not None:
        axes.axhline(threshold, color="red", linestyle="--", linewidth=1.2, label=f"threshold {threshold:g} GB/s")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("message size (bytes)")
    axes.set_ylabel("bus bandwidth (GB/s)")
    axes.set_title(title, fontsize=9, wrap=True)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(fontsize=7, ncol=2 if curves["label"].nunique() > 8 else 1)
    return _png(figure)
