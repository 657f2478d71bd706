"""Figures of the report, drawn with matplotlib's Agg canvas (no display, no pyplot state) as PNG bytes (the
NIC-pair views are rasters of their own, ``raster``)."""

from __future__ import annotations

import base64
import io

import pandas as pd
from matplotlib.figure import Figure

DPI = 96
THRESHOLD_COLOURS = ("red", "darkorange", "purple", "brown")


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)  # no bbox_inches="tight": it draws the figure twice
    return buffer.getvalue()


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
