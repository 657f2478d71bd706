"""Figures of the report, drawn with matplotlib's Agg canvas (no display, no pyplot state) as PNG bytes."""

from __future__ import annotations

import base64
import io
import math

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

DPI = 96
MISSING_COLOUR = "#eeeeee"
FAILED_MARK = "#000000"
MAX_LABELLED_NODES = 32  # above this only every k-th node is labelled
TICK_LABEL_MARGIN_IN, TICK_LABEL_CHAR_IN = 0.25, 0.065  # room for node names at 7 pt
TITLE_MARGIN_IN = 0.45
COLOUR_BAR_GAP_IN, COLOUR_BAR_WIDTH_IN, COLOUR_BAR_LABELS_IN = 0.15, 0.2, 0.75


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


def _heatmap_axes(figure_side: float, longest_label: int) -> tuple[Figure, Axes, Axes]:
    """A square matrix axes and its colour bar placed in inches (a fixed layout: a layout engine measures every
    text of the figure before drawing, which cost as much as the drawing itself)."""
    label = TICK_LABEL_MARGIN_IN + TICK_LABEL_CHAR_IN * longest_label
    width = label + figure_side + COLOUR_BAR_GAP_IN + COLOUR_BAR_WIDTH_IN + COLOUR_BAR_LABELS_IN
    height = label + figure_side + TITLE_MARGIN_IN
    figure = Figure(figsize=(width, height))
    axes = figure.add_axes((label / width, label / height, figure_side / width, figure_side / height))
    bar_left = (label + figure_side + COLOUR_BAR_GAP_IN) / width
    bar_axes = figure.add_axes((bar_left, label / height, COLOUR_BAR_WIDTH_IN / width, figure_side / height))
    return figure, axes, bar_axes


def heatmap_png(values: np.ndarray, failed: np.ndarray, nodes: list[str], *, title: str, unit: str,
                threshold: float | None, expected: str, lower_is_better: bool,
                value_range: tuple[float, float] | None = None) -> bytes:
    """Node x node heatmap: red below (or above, for latency) the threshold, green past it; failed cells crossed.
    ``value_range`` fixes the colour scale (one scale for every rail of a latency check)."""
    positions, labels = _ticks(nodes)
    figure, axes, bar_axes = _heatmap_axes(min(3.2 + 0.1 * len(nodes), 9.0), max(map(len, labels), default=1))
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if value_range is not None:
        low, high = value_range
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
        axes.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False, borderaxespad=0.1)
    axes.set_xticks(positions, labels, rotation=90, fontsize=7)
    axes.set_yticks(positions, labels, fontsize=7)
    axes.set_title(title, fontsize=10, loc="left")
    bar = figure.colorbar(image, cax=bar_axes)
    bar.set_label(f"{unit}; threshold {expected}", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    if threshold is not None:
        bar.ax.axhline(float(threshold), color="black", linewidth=1.5)
    return _png(figure)


THRESHOLD_COLOURS = ("red", "darkorange", "purple", "brown")


def busbw_png(curves: pd.DataFrame, *, title: str, thresholds: dict[float, str]) -> bytes:
    """Bus bandwidth vs message size, log x axis, one line per run, each node group's own threshold drawn
    (``thresholds``: value -> the runs judged against it)."""
    figure = Figure(figsize=(8.0, 4.5), layout="constrained")
    axes = figure.add_subplot()
    for label, curve in curves.groupby("label", sort=True):
        curve = curve.sort_values("size_bytes")
        axes.plot(curve["size_bytes"], curve["busbw_gbs"], marker=".", linewidth=1.2, label=str(label))
    for number, (threshold, runs) in enumerate(thresholds.items()):
        axes.axhline(threshold, color=THRESHOLD_COLOURS[number % len(THRESHOLD_COLOURS)], linestyle="--", linewidth=1.2,
                     label=f"threshold {threshold:g} GB/s ({runs})" if len(thresholds) > 1 else f"threshold {threshold:g} GB/s")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("message size (bytes)")
    axes.set_ylabel("bus bandwidth (GB/s)")
    axes.set_title(title, fontsize=9, wrap=True)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(fontsize=7, ncol=2 if curves["label"].nunique() > 8 else 1)
    return _png(figure)
