"""Pair views as raster images: one pixel per cell, one palette colour per verdict class, shown magnified by the
page (``image-rendering: pixelated``), so a 256 x 256 matrix is a few kilobytes and every cell stays a cell.

Classes are ordered by severity: where a view holds more nodes than pixels (1,024 nodes), a block of cells
shows its most severe class (a failed pair is never averaged away).
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass

import numpy as np
from PIL import Image

MAX_CELLS = 768  # a matrix side above this is pooled (the worst of each block of cells)


@dataclass(frozen=True)
class CellClass:
    code: int
    colour: str
    label: str


MISSING = CellClass(0, "#e6e6e6", "not measured")
SELF = CellClass(1, "#ffffff", "same node")
AT_MEDIAN = CellClass(2, "#66bd63", "as its peers: better than their median, or worse by less than half the outlier gap")
WATCH = CellClass(3, "#fee08b", "worse than the median of its peers by more than half the outlier gap")
OUTLIER = CellClass(4, "#fdae61", "outlier: passed its threshold, worse than its peers")
FAILED = CellClass(5, "#d7191c", "failed its threshold")
COUNT_NONE = CellClass(6, "#ffffff", "no partner failed or outlier")
COUNT_ONE = CellClass(7, "#fcbba1", "1 partner failed or outlier")
COUNT_SOME = CellClass(8, "#fb6a4a", "2-9 partners")
COUNT_MANY = CellClass(9, "#a50f15", "10 or more partners")
VERDICT_CLASSES = (MISSING, SELF, AT_MEDIAN, WATCH, OUTLIER, FAILED)
COUNT_CLASSES = (COUNT_NONE, COUNT_ONE, COUNT_SOME, COUNT_MANY)
_PALETTE = [channel for cls in (*VERDICT_CLASSES, *COUNT_CLASSES) for channel in bytes.fromhex(cls.colour[1:])]


def count_classes(counts: np.ndarray) -> np.ndarray:
    """Partner counts as count classes (none, one, 2-9, 10 or more)."""
    return np.select([counts <= 0, counts == 1, counts < 10], [COUNT_NONE.code, COUNT_ONE.code, COUNT_SOME.code],
                     COUNT_MANY.code).astype(np.uint8)


def pooled(classes: np.ndarray, limit: int = MAX_CELLS) -> tuple[np.ndarray, int]:
    """The matrix with each side at most ``limit`` cells: blocks of ``factor`` x ``factor`` cells show their most
    severe class; returns (matrix, factor). A strip (one side short) is pooled along its long side only."""
    factor = max(1, math.ceil(max(classes.shape) / limit))
    if factor == 1:
        return classes, 1
    rows = classes.shape[0] if classes.shape[0] <= limit else math.ceil(classes.shape[0] / factor) * factor
    cols = math.ceil(classes.shape[1] / factor) * factor
    padded = np.zeros((rows, cols), dtype=np.uint8)
    padded[:classes.shape[0], :classes.shape[1]] = classes
    row_factor = factor if classes.shape[0] > limit else 1
    blocks = padded.reshape(rows // row_factor, row_factor, cols // factor, factor)
    return blocks.max(axis=(1, 3)), factor


def png_data_uri(classes: np.ndarray) -> str:
    """A matrix of class codes as a palette PNG data URI (one pixel per cell)."""
    image = Image.fromarray(np.ascontiguousarray(classes, dtype=np.uint8))
    image.putpalette(_PALETTE)  # an "L" image with a palette becomes a "P" image
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
