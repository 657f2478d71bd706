"""One pair view on the page: a raster of cells (``raster``) magnified to whole pixels per cell, with leaf-switch
blocks, labels and marks laid over it in HTML (no script), so marks keep their size whatever the cell size.

Geometry is in CSS pixels: the raster is shown at ``cell_w`` x ``cell_h`` pixels per cell, at (``left``,
``top``) inside its box; a mark is centred on its cell."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from pytest_gpufabric.reporting.acceptance.htmlkit import attrs

LABEL_CHAR_PX = 6.5  # width of one character of the 10 px labels
MIN_LABELLED_BLOCK_PX = 24
CANVAS_STYLE = """
.pv{position:relative;display:inline-block;flex:none}.pv img{position:absolute;image-rendering:pixelated}
.pv .lbl{position:absolute;font-size:10px;line-height:10px;color:#333;white-space:nowrap;overflow:hidden}
.pv .lbl.col{writing-mode:vertical-rl;transform:rotate(180deg)}.pv .lbl.down{writing-mode:vertical-rl}
.pv .line{position:absolute;background:#333}
.mark{position:absolute;width:14px;height:14px;margin:-9px 0 0 -9px;border:2px solid #000;border-radius:50%}
.mark.m-outlier{border-color:#7b3294}.mark b{position:absolute;left:15px;top:-8px;font-size:10px;line-height:11px;
background:#fff;padding:0 2px;color:#000}.mark.m-outlier b{color:#7b3294}
.band{position:absolute;border:2px solid #000;box-sizing:border-box}.band.m-outlier{border-color:#7b3294}
"""


@dataclass(frozen=True)
class Mark:
    """A ring on one cell, numbered like its suspect; ``data`` become data- attributes."""

    kind: str  # "failed" or "outlier"
    number: int
    title: str
    data: dict[str, str] = field(default_factory=dict)


@dataclass
class Canvas:
    """A box holding one raster image and what is laid over it."""

    width: int
    height: int
    parts: list[str] = field(default_factory=list)

    def image(self, data_uri: str, alt: str, left: int, top: int, width: int, height: int) -> None:
        self.parts.append(f"<img src='{data_uri}' alt='{escape(alt, quote=True)}' "
                          f"style='left:{left}px;top:{top}px;width:{width}px;height:{height}px'>")

    def label(self, text: str, left: float, top: float, width: float, *, column: str = "", title: str = "") -> None:
        """A 10 px label; ``column`` "up" (ending at the bottom, above a view) or "down" (starting at the top, under
        a view): written in a column ``width`` px high."""
        size = f"height:{width:.0f}px" if column else f"width:{width:.0f}px"
        css = {"up": "lbl col", "down": "lbl down"}.get(column, "lbl")
        self.parts.append(f"<span{attrs({'class': css, 'title': title or None})} style='left:{left:.1f}px;top:{top:.1f}px;"
                          f"{size}'>{escape(text)}</span>")

    def line(self, left: float, top: float, width: float, height: float) -> None:
        self.parts.append(f"<i class='line' style='left:{left:.1f}px;top:{top:.1f}px;width:{width:.1f}px;height:{height:.1f}px'></i>")

    def mark(self, mark: Mark, x: float, y: float) -> None:
        data = {"class": f"mark m-{mark.kind}", "title": mark.title, "data-kind": mark.kind,
                **{f"data-{key}": value for key, value in mark.data.items()}}
        self.parts.append(f"<span{attrs(data)} style='left:{x:.1f}px;top:{y:.1f}px'><b>{mark.number}</b></span>")

    def band(self, kind: str, left: float, top: float, width: float, height: float, data: dict[str, str]) -> None:
        """An outline around a whole row or column of cells (a suspect NIC with all of its partners)."""
        self.parts.append(f"<i{attrs({'class': f'band m-{kind}', **{f'data-{k}': v for k, v in data.items()}})} "
                          f"style='left:{left:.1f}px;top:{top:.1f}px;width:{width:.1f}px;height:{height:.1f}px'></i>")

    def html(self, data: dict[str, object] | None = None) -> str:
        return (f"<div{attrs({'class': 'pv', **(data or {})})} style='width:{self.width}px;height:{self.height}px'>"
                f"{''.join(self.parts)}</div>")


def block_label(name: str, width_px: float, number: int) -> str:
    """A leaf block's label where it fits, else its number (the full name is its title)."""
    return name if len(name) * LABEL_CHAR_PX <= width_px else (str(number) if width_px >= MIN_LABELLED_BLOCK_PX / 2 else "")
