"""NIC-pair views that stay readable at 256 and 1,024 nodes: bandwidth per rail and latency.

A section starts with an overview of each check: every node (columns, in leaf-switch blocks) on every rail
(rows), each cell the worst partner of that NIC, the suspects ringed and listed beside it. Then, per check and
rail, the node x node heatmap in leaf blocks with its per-node summary strip (worst partner, partners failed or
outlier) under it and the worst pairs beside it. Cells are verdict classes (``raster``): failed, outlier, and
for the others how far below the median of their peers they are; a ring marks a suspect of the fault
localization (black: failures, purple: outliers), a band a suspect NIC's row and column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np
import pandas as pd

from pytest_gpufabric.checks.localization import Localization, partner_list
from pytest_gpufabric.fleet.outliers import Judgement
from pytest_gpufabric.reporting.acceptance import raster
from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, section, text
from pytest_gpufabric.reporting.acceptance.pair_canvas import Canvas, Mark, block_label
from pytest_gpufabric.reporting.acceptance.pairs import LOWER_IS_BETTER_OPS

LATENCY_UNIT = "us"
WORST_PAIRS_SHOWN = 5
SUSPECTS_SHOWN = 12
HEATMAP_PX, OVERVIEW_PX = 640, 1024  # the longest side of a view on screen (a heatmap leaves room for its table); more cells are pooled
MAX_CELL_PX = 24
OVERVIEW_ROW_PX, STRIP_ROW_PX = 16, 10
LABELLED_NODES = 40  # up to this many nodes every node is named; beyond, only the leaf blocks
NAME_PX, BLOCK_LABEL_PX, TOP_PX = 96, 14, 16
PAIR_VIEW_STYLE = """
.pair-row{display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap}.pair-row table{font-size:11px}
.overview{margin:4px 0 14px}.overview h4{margin:4px 0;font-size:13px}.legend .key{font-size:11px}
.suspect-list td:first-child{font-weight:bold}
"""


@dataclass(frozen=True)
class Axis:
    """The nodes of a view in order (by leaf switch, then name) and the blocks of one leaf: (label, start, stop)."""

    nodes: tuple[str, ...]
    blocks: tuple[tuple[str, int, int], ...]

    @property
    def index(self) -> dict[str, int]:
        return {node: i for i, node in enumerate(self.nodes)}


def node_axis(nodes: Iterable[str], block_of: Callable[[str], str]) -> Axis:
    ordered = tuple(sorted(set(nodes), key=lambda node: (block_of(node), node)))
    blocks: list[tuple[str, int, int]] = []
    for i, node in enumerate(ordered):
        block = block_of(node)
        if blocks and blocks[-1][0] == block:
            blocks[-1] = (block, blocks[-1][1], i + 1)
        else:
            blocks.append((block, i, i + 1))
    return Axis(ordered, tuple(blocks))


def pair_classes(pairs: pd.DataFrame, judgement: Judgement | None) -> np.ndarray:
    """The verdict class (``raster``) of every pair row: failed, outlier, worse than the median of its peers by
    more than half the outlier gap, or as its peers (also where no outlier rule judged it)."""
    classes = np.full(len(pairs), raster.AT_MEDIAN.code, dtype=np.uint8)
    if judgement is not None:
        gap, half = judgement.gap.to_numpy(dtype=float), judgement.min_gap.to_numpy(dtype=float) / 2
        with np.errstate(invalid="ignore"):
            classes[gap > half] = raster.WATCH.code
        classes[judgement.outlier.to_numpy(dtype=bool)] = raster.OUTLIER.code
    classes[~pairs["passed"].to_numpy(dtype=bool)] = raster.FAILED.code
    return classes


@dataclass(frozen=True)
class Suspect:
    """A suspect of the fault localization as the views number it: its ends (one NIC, or the two of a link)."""

    number: int
    kind: str  # "failed" or "outlier"
    ends: tuple[str, ...]
    text: str


def check_suspects(localization: Localization, check_id: str) -> list[Suspect]:
    """The suspects whose checks include ``check_id``: failures first, then outliers."""
    found: list[tuple[str, tuple[str, ...], str]] = []
    for kind, ends, links, verb in (("failed", localization.suspect_ends, localization.suspect_links, "fails"),
                                    ("outlier", localization.outlier_ends, localization.outlier_links, "is an outlier")):
        found += [(kind, (end.end,), f"{end.end} {verb} with {len(end.partners)} partners ({partner_list(end.partners, 3)})")
                  for end in ends if check_id in end.checks]
        found += [(kind, (link.a, link.b), f"link {link.a} <-> {link.b} {verb} only together (cable, optics, switch port)")
                  for link in links if check_id in link.checks]
    return [Suspect(number, kind, ends, what) for number, (kind, ends, what) in enumerate(found, 1)]


def _rail_order(rail: Any) -> tuple[int, Any]:
    return (0, int(rail)) if str(rail).isdigit() else (1, str(rail))


class CheckViews:
    """The views of one check and metric: its rows, their classes, and where each NIC is (nodes and rails as
    integer codes, so that a rail's matrix is built from arrays, not from the rows)."""

    def __init__(self, rows: pd.DataFrame, classes: np.ndarray, leaves: dict[str, str], suspects: list[Suspect]) -> None:
        self.rows, self.classes, self.leaves, self.suspects = rows, classes, leaves, suspects
        self.values = rows["value"].to_numpy(dtype=float)
        self.passed = rows["passed"].to_numpy(dtype=bool)
        self.outlier = rows["outlier"].to_numpy(dtype=bool)
        node_codes, names = pd.factorize(np.concatenate([rows["node_a"].to_numpy(), rows["node_b"].to_numpy()]))
        self.node_a, self.node_b = node_codes[:len(rows)], node_codes[len(rows):]
        self.rail_codes, rail_values = pd.factorize(rows["rail"])
        self.nodes = sorted(str(name) for name in names)
        self._names = [str(name) for name in names]
        self.rails = sorted(rail_values, key=_rail_order)
        self._rail_code = {rail: code for code, rail in enumerate(rail_values)}
        ends = pd.DataFrame({"node": node_codes, "rail": np.concatenate([self.rail_codes, self.rail_codes]),
                             "nic": np.concatenate([rows["nic_a"].to_numpy(), rows["nic_b"].to_numpy()])}).drop_duplicates(
            ["node", "rail"])
        self.nic_of = {(self._names[node], rail_values[rail]): nic for node, rail, nic in ends.itertuples(index=False)}
        self.where = {f"{node}/{nic}": (node, rail) for (node, rail), nic in self.nic_of.items()}
        self._matrices: dict[Any, tuple[Axis, np.ndarray, np.ndarray]] = {}

    def nodes_on(self, rail: Any) -> list[str]:
        return sorted(node for node, on in self.nic_of if on == rail)

    def rows_on(self, rail: Any) -> np.ndarray:
        """Positions of the rows of ``rail``."""
        return np.flatnonzero(self.rail_codes == self._rail_code[rail])

    def suspect_nodes(self, rail: Any, axis: Axis) -> list[int]:
        """Indexes in ``axis`` of the suspect NICs (suspect ends, not links) of this check on ``rail``."""
        index = axis.index
        return sorted({index[self.where[end][0]] for suspect in self.suspects if len(suspect.ends) == 1
                       for end in suspect.ends if end in self.where and self.where[end][1] == rail
                       and self.where[end][0] in index})

    def leaf(self, node: str, rail: Any) -> str:
        nic = self.nic_of.get((node, rail))
        return self.leaves.get(f"{node}/{nic}", "") if nic else ""

    def rail_matrix(self, rail: Any) -> tuple[Axis, np.ndarray, np.ndarray]:
        """The nodes of one rail in leaf blocks, their node x node classes (both triangles, the diagonal "same
        node") and each node's count of partners failed or outlier."""
        if rail not in self._matrices:
            axis = node_axis(self.nodes_on(rail), lambda node: self.leaf(node, rail))
            position = np.full(len(self._names), -1, dtype=np.int64)
            index = axis.index
            for code, name in enumerate(self._names):
                position[code] = index.get(name, -1)
            on = self.rows_on(rail)
            a, b, classes = position[self.node_a[on]], position[self.node_b[on]], self.classes[on]
            matrix = np.full((len(axis.nodes), len(axis.nodes)), raster.MISSING.code, dtype=np.uint8)
            matrix[a, b] = classes
            matrix[b, a] = classes
            np.fill_diagonal(matrix, raster.SELF.code)
            bad = classes >= raster.OUTLIER.code
            counts = np.bincount(a[bad], minlength=len(axis.nodes)) + np.bincount(b[bad], minlength=len(axis.nodes))
            self._matrices[rail] = (axis, matrix, counts)
        return self._matrices[rail]


def worst_partner(matrix: np.ndarray, suspects: list[int]) -> np.ndarray:
    """Each node's worst partner, not counting partners that are suspect NICs (``suspects``: their indexes; a
    suspect's own cell shows its worst partner): the faults show where they are, not in every partner's cell."""
    cells = np.where(matrix == raster.SELF.code, raster.MISSING.code, matrix)
    others = cells.copy()
    others[:, suspects] = raster.MISSING.code
    worst = others.max(axis=1) if others.size else np.zeros(0, dtype=np.uint8)
    worst[suspects] = cells[suspects].max(axis=1) if suspects else worst[suspects]
    return worst


def _cell_px(cells: int, target: int) -> int:
    return max(1, min(MAX_CELL_PX, target // max(cells, 1)))


def _legend(lower_is_better: bool) -> str:
    classes = (raster.FAILED, raster.OUTLIER, raster.WATCH, raster.AT_MEDIAN, raster.MISSING)
    keys = "".join(f"<span class='key' style='background:{c.colour}'>{escape(c.label)}</span>" for c in classes)
    worse = "above" if lower_is_better else "below"
    rings = ("<span class='key'>black ring: suspect of the failures; purple ring: suspect of the outliers; "
             "a band: a suspect NIC's partners</span>")
    return f"<p class='legend'>{keys}{rings}<span class='key'>worse: {worse} the median</span></p>"


def _marks_for(views: CheckViews, rail: Any | None) -> list[tuple[Suspect, str]]:
    """(suspect, end) for each end of the check's suspects on ``rail`` (None: every rail)."""
    return [(suspect, end) for suspect in views.suspects for end in suspect.ends
            if end in views.where and (rail is None or views.where[end][1] == rail)]


def _blocks(canvas: Canvas, axis: Axis, left: float, top: float, scale: float, length: float, *, across: bool,
            names: Callable[[str, int, int], str]) -> None:
    """Leaf block separators and labels along the columns (``across``) or the rows of a view; ``scale``: pixels
    per node."""
    for number, (name, start, stop) in enumerate(axis.blocks, 1):
        offset, span = start * scale, (stop - start) * scale
        if start:
            if across:
                canvas.line(left + offset, top, 1, length)
            else:
                canvas.line(left, top + offset, length, 1)
        label = names(name, start, stop)
        if not label:
            continue
        title = f"{label}: {axis.nodes[start]}..{axis.nodes[stop - 1]}"
        if across:
            canvas.label(block_label(label, span, number), left + offset, top - BLOCK_LABEL_PX, span, title=title)
        else:
            canvas.label(block_label(label, NAME_PX - 4, number), 0, top + offset, NAME_PX - 4, title=title)


def _node_range(axis: Axis) -> Callable[[str, int, int], str]:
    return lambda _name, start, stop: f"{axis.nodes[start]}-{axis.nodes[stop - 1]}" if len(axis.blocks) > 1 else ""


def overview(views: CheckViews, check_id: str, title: str) -> str:
    """Every node on every rail: each cell the NIC's worst partner, the suspects ringed and listed beside."""
    first = views.rails[0]
    axis = node_axis(views.nodes, lambda node: views.leaf(node, first))
    worst = np.full((len(views.rails), len(axis.nodes)), raster.MISSING.code, dtype=np.uint8)
    index = axis.index
    for row, rail in enumerate(views.rails):
        rail_axis, matrix, _ = views.rail_matrix(rail)
        worst[row, [index[node] for node in rail_axis.nodes]] = worst_partner(matrix, views.suspect_nodes(rail, rail_axis))
    shown, factor = raster.pooled(worst, OVERVIEW_PX)
    cell = _cell_px(shown.shape[1], OVERVIEW_PX)
    scale = cell / factor
    width, height = shown.shape[1] * cell, len(views.rails) * OVERVIEW_ROW_PX
    named = len(axis.nodes) <= LABELLED_NODES
    left, top = 52, TOP_PX
    canvas = Canvas(left + width + 24, top + height + (NAME_PX if named else 4))
    canvas.image(raster.png_data_uri(shown), f"{check_id}: worst partner of every NIC, rails x nodes", left, top, width, height)
    for row, rail in enumerate(views.rails):
        canvas.label(f"rail {rail}", 0, top + row * OVERVIEW_ROW_PX + 3, left - 4)
    if named:
        for i, node in enumerate(axis.nodes):
            canvas.label(node, left + i * scale + max(0.0, (scale - 10) / 2), top + height + 2, NAME_PX - 4, column="down")
    _blocks(canvas, axis, left, top, scale, height, across=True, names=(lambda *_: "") if named else _node_range(axis))
    for suspect, end in _marks_for(views, None):
        node, rail = views.where[end]
        canvas.mark(Mark(suspect.kind, suspect.number, f"{suspect.number}: {suspect.text}", {"end": end, "check": check_id}),
                    left + (index[node] + 0.5) * scale, top + (views.rails.index(rail) + 0.5) * OVERVIEW_ROW_PX)
    data = {"data-overview": check_id, "data-nodes": len(axis.nodes), "data-rails": len(views.rails)}
    return (f"<div class='overview' id='overview-{escape(check_id)}'><h4>{escape(check_id)} {escape(title)}: "
            f"every NIC's worst partner, not counting suspect NICs</h4><div class='pair-row'>{canvas.html(data)}{_suspect_table(views.suspects)}"
            f"</div></div>")


def _suspect_table(suspects: list[Suspect]) -> str:
    if not suspects:
        return "<p class='suspect-list'>no suspect: nothing failed or stands out</p>"
    rows = "".join(f"<tr{attrs({'class': 'o-failed' if s.kind == 'failed' else 'o-error', 'data-kind': s.kind})}>"
                   f"<td>{s.number}</td><td>{escape(s.text)}</td></tr>" for s in suspects[:SUSPECTS_SHOWN])
    more = f"<tr><td></td><td>and {len(suspects) - SUSPECTS_SHOWN} more (Suspects)</td></tr>" if len(suspects) > SUSPECTS_SHOWN else ""
    return f"<table class='grid suspect-list'><tbody>{rows}{more}</tbody></table>"


def _heatmap_canvas(views: CheckViews, rail: Any, check_id: str) -> tuple[Canvas, Axis]:
    """The node x node raster of one rail in leaf blocks, the node strip under it, the suspects marked."""
    axis, matrix, counts = views.rail_matrix(rail)
    shown, factor = raster.pooled(matrix, HEATMAP_PX)
    cell = _cell_px(shown.shape[0], HEATMAP_PX)
    scale, side = cell / factor, shown.shape[0] * cell
    named = len(axis.nodes) <= LABELLED_NODES
    left = NAME_PX
    top = (NAME_PX if named else BLOCK_LABEL_PX) + 2
    strip_top = top + side + 6
    canvas = Canvas(left + side + 24, strip_top + 2 * STRIP_ROW_PX + 6)
    canvas.image(raster.png_data_uri(shown), f"{check_id} rail {rail}: node x node", left, top, side, side)
    worst = worst_partner(matrix, views.suspect_nodes(rail, axis))
    strip, _ = raster.pooled(np.vstack([worst, raster.count_classes(counts)]), HEATMAP_PX)
    canvas.image(raster.png_data_uri(strip), f"{check_id} rail {rail}: worst partner and partners failed or outlier "
                 "of every node", left, strip_top, side, 2 * STRIP_ROW_PX)
    canvas.label("worst partner", 0, strip_top, left - 4)
    canvas.label("failed/outlier", 0, strip_top + STRIP_ROW_PX, left - 4)
    if named:
        for i, node in enumerate(axis.nodes):
            canvas.label(node, 0, top + i * scale + max(0.0, (scale - 10) / 2), left - 4)
            canvas.label(node, left + i * scale + max(0.0, (scale - 10) / 2), 0, NAME_PX - 2, column="up")
        _blocks(canvas, axis, left, top, scale, side, across=True, names=lambda *_: "")
        _blocks(canvas, axis, left, top, scale, side, across=False, names=lambda *_: "")
    else:
        _blocks(canvas, axis, left, top, scale, side, across=True, names=lambda name, *_: name)
        _blocks(canvas, axis, left, top, scale, side, across=False, names=lambda name, *_: name)
    index = axis.index
    for suspect, end in _marks_for(views, rail):
        i = index[views.where[end][0]]
        data = {"end": end, "check": check_id}
        if len(suspect.ends) == 1:
            canvas.band(suspect.kind, left + i * scale - 2, top, scale + 4, side, data)
            canvas.band(suspect.kind, left, top + i * scale - 2, side, scale + 4, data)
        else:
            other = index[views.where[next(e for e in suspect.ends if e != end)][0]]
            canvas.mark(Mark(suspect.kind, suspect.number, f"{suspect.number}: {suspect.text}", data),
                        left + (other + 0.5) * scale, top + (i + 0.5) * scale)
        canvas.mark(Mark(suspect.kind, suspect.number, f"{suspect.number}: {suspect.text}", data),
                    left + (i + 0.5) * scale, strip_top + STRIP_ROW_PX)
    return canvas, axis


def _worst_pairs(views: CheckViews, on: np.ndarray, gaps: np.ndarray, lower_is_better: bool) -> str:
    """The failed pairs of a rail first, then the lowest (highest for latency), with their gap to their peers'
    median (``on``: the rail's rows)."""
    value = views.values[on]
    order = np.lexsort((-value if lower_is_better else value, views.passed[on]))[:WORST_PAIRS_SHOWN]
    worst = views.rows.iloc[on[order]].assign(gap=gaps[on[order]])
    rows = "".join(
        f"<tr{attrs({'class': 'o-passed' if r.passed else 'o-failed', 'data-pair': f'{r.node_a}/{r.nic_a} <-> {r.node_b}/{r.nic_b}', 'data-value': r.value, 'data-outcome': 'passed' if r.passed else 'failed', 'data-outlier': 'yes' if r.outlier else None})}>"
        f"<td>{escape(f'{r.node_a}/{r.nic_a} <-> {r.node_b}/{r.nic_b}')}</td><td>{text(r.value)} {escape(str(r.unit))}</td>"
        f"<td>{_vs_peers(r.gap)}</td><td>{'outlier' if r.outlier else ''}</td>"
        f"<td>{'passed' if r.passed else 'failed'}</td></tr>"
        for r in worst.itertuples(index=False)
    )
    title = "failed, then highest" if lower_is_better else "failed, then lowest"
    return (f"<table class='worst grid'><thead><tr><th>{title} pairs</th><th>value</th><th>vs peers</th><th>outlier</th>"
            f"<th>verdict</th></tr></thead><tbody>{rows}</tbody></table>")


def _vs_peers(gap: float) -> str:
    """How a value stands against its peers' median: -15.0 % is 15 % worse."""
    return "" if pd.isna(gap) else ("0.0%" if abs(gap) < 0.0005 else f"{-gap:+.1%}")


def heatmap(views: CheckViews, rail: Any, check_id: str, title: str, gaps: np.ndarray) -> str:
    on = views.rows_on(rail)
    first = views.rows.iloc[on[0]]
    lower_is_better = first["op"] in LOWER_IS_BETTER_OPS
    canvas, axis = _heatmap_canvas(views, rail, check_id)
    n_failed = int((~views.passed[on]).sum())
    n_outliers = int(views.outlier[on].sum())
    caption = (f"{check_id} {title}, rail {rail}: {first['metric']} ({first['unit']}); threshold {first['expected']} "
               f"[{first['source']}]; {len(on)} pairs, {n_failed} failed, {n_outliers} outliers; "
               f"{len(axis.nodes)} nodes in {len(axis.blocks)} leaf blocks")
    data = {"class": "heatmap", "data-check": check_id, "data-rail": rail, "data-metric": first["metric"],
            "data-pairs": len(on), "data-failed": n_failed, "data-outliers": n_outliers,
            "id": f"heatmap-{check_id}-rail-{rail}"}
    return (f"<figure{attrs(data)}><div class='pair-row'>{canvas.html()}"
            f"{_worst_pairs(views, on, gaps, lower_is_better)}</div>"
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def pair_section(pairs: pd.DataFrame, judgement: Judgement | None, localization: Localization, leaves: dict[str, str],
                 titles: dict[str, str], *, latency: bool) -> str:
    """The bandwidth (or latency) section: the overviews of every check, then each check's heatmaps per rail."""
    section_id, heading = ("latency", "RDMA latency matrices") if latency else ("pairs", "NIC-pair bandwidth per rail")
    chosen = pairs[(pairs["unit"] == LATENCY_UNIT) == latency] if not pairs.empty else pairs
    if chosen.empty:
        return section(section_id, heading, ["<p>No NIC-pair values in this run.</p>"])
    classes = pair_classes(pairs, judgement)
    outlier = judgement.outlier if judgement is not None else pd.Series(False, index=pairs.index)
    gaps = judgement.gap if judgement is not None else pd.Series(np.nan, index=pairs.index)
    chosen = chosen.assign(outlier=outlier[chosen.index].astype(bool))
    overviews, details = [], []
    for (check_id, _metric), by_check in chosen.groupby(["check_id", "metric"], sort=True):
        check, title = str(check_id), titles.get(str(check_id), "")
        positions = pairs.index.get_indexer(by_check.index)
        views = CheckViews(by_check, classes[positions], leaves, check_suspects(localization, check))
        overviews.append(overview(views, check, title))
        details.append(f"<h3 id='pairs-{escape(check)}'>{escape(check)} {escape(title)}</h3>")
        check_gaps = gaps.to_numpy(dtype=float)[positions]
        details += [heatmap(views, rail, check, title, check_gaps) for rail in views.rails]
    intro = ("Each cell is a NIC pair's worst direction: red failed its threshold, orange passed it but is an outlier "
             "among its peers (same check, rail and group), yellow is worse than their median by more than half the "
             "outlier gap, green is as its peers. Nodes are in leaf-switch blocks. First every check at a glance (each cell: a NIC's worst "
             "partner), then per rail the node x node heatmap, the strip of each node's worst partner and of its "
             "partners failed or outlier, and the worst pairs.")
    return section(section_id, heading, [_legend(latency), *overviews, *details], intro)
