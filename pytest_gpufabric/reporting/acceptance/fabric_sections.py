"""NIC-pair heatmaps (bandwidth per rail, latency) and collective bus bandwidth curves."""

from __future__ import annotations

from html import escape
from typing import Any

import pandas as pd

from pytest_gpufabric.reporting.acceptance.figures import busbw_png, heatmap_png, pair_matrix, png_data_uri
from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, image, section, text
from pytest_gpufabric.reporting.acceptance.pairs import LOWER_IS_BETTER_OPS

WORST_PAIRS_SHOWN = 5
LATENCY_UNIT = "us"


def _rail_key(rail: Any) -> tuple[int, Any]:
    return (0, int(rail)) if isinstance(rail, (int, float)) or str(rail).isdigit() else (1, str(rail))


def _worst_pairs(group: pd.DataFrame, lower_is_better: bool) -> str:
    worst = group.sort_values(["passed", "value"], ascending=[True, not lower_is_better]).head(WORST_PAIRS_SHOWN)
    rows = "".join(
        f"<tr{attrs({'class': 'o-passed' if r.passed else 'o-failed', 'data-pair': f'{r.node_a}/{r.nic_a} <-> {r.node_b}/{r.nic_b}', 'data-value': r.value, 'data-outcome': 'passed' if r.passed else 'failed'})}>"
        f"<td>{escape(f'{r.node_a}/{r.nic_a} <-> {r.node_b}/{r.nic_b}')}</td><td>{text(r.value)} {escape(str(r.unit))}</td>"
        f"<td>{'passed' if r.passed else 'failed'}</td></tr>"
        for r in worst.itertuples(index=False)
    )
    title = "failed, then highest" if lower_is_better else "failed, then lowest"
    return (f"<table class='worst grid'><thead><tr><th>{title} pairs</th><th>value</th><th>verdict</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def _heatmap(group: pd.DataFrame, nodes: list[str], check_id: str, title: str, rail: Any,
             value_range: tuple[float, float] | None = None) -> str:
    first = group.iloc[0]
    lower_is_better = first["op"] in LOWER_IS_BETTER_OPS
    values, failed = pair_matrix(group, nodes)
    threshold = first["threshold"] if isinstance(first["threshold"], (int, float)) else None
    caption = f"{check_id} {title}, rail {rail}: {first['metric']} ({first['unit']}); threshold {first['expected']} [{first['source']}]"
    png = heatmap_png(values, failed, nodes, title=f"{check_id} rail {rail}", unit=str(first["unit"]),
                      threshold=threshold, expected=str(first["expected"]), lower_is_better=lower_is_better,
                      value_range=value_range)
    n_failed = int((~group["passed"]).sum())
    data = {"class": "heatmap", "data-check": check_id, "data-rail": rail, "data-metric": first["metric"],
            "data-pairs": len(group), "data-failed": n_failed, "id": f"heatmap-{check_id}-rail-{rail}"}
    return (f"<figure{attrs(data)}>{image(png_data_uri(png), caption)}"
            f"<figcaption>{escape(caption)}; {len(group)} pairs, {n_failed} failed (crossed)</figcaption>"
            f"{_worst_pairs(group, lower_is_better)}</figure>")


def pair_heatmaps(pairs: pd.DataFrame, titles: dict[str, str], *, latency: bool) -> str:
    """One heatmap per pair check, metric and rail (bandwidth), or the latency matrices (PERF-007 & co.)."""
    chosen = pairs[(pairs["unit"] == LATENCY_UNIT) == latency] if not pairs.empty else pairs
    section_id, heading = ("latency", "RDMA latency matrices") if latency else ("pairs", "NIC-pair bandwidth per rail")
    if chosen.empty:
        return section(section_id, heading, ["<p>No NIC-pair values in this run.</p>"])
    nodes = sorted(set(chosen["node_a"]) | set(chosen["node_b"]))
    body = []
    for (check_id, metric), by_check in chosen.groupby(["check_id", "metric"], sort=True):
        body.append(f"<h3 id='pairs-{escape(str(check_id))}'>{escape(str(check_id))} {escape(titles.get(str(check_id), ''))}</h3>")
        shared = (float(by_check["value"].min()), float(by_check["value"].max())) if latency else None
        figures = [_heatmap(group, nodes, str(check_id), titles.get(str(check_id), ""), rail, shared)
                   for rail, group in sorted(by_check.groupby("rail"), key=lambda kv: _rail_key(kv[0]))]
        body.append(f"<div class='figures'>{''.join(figures)}</div>")
    intro = ("Node x node, worst value of both directions of each NIC pair; colours turn red past the threshold "
             "(the black line on the colour bar); failed pairs are crossed.")
    return section(section_id, heading, body, intro)


def threshold_groups(by_item: dict[str, float]) -> dict[float, str]:
    """Each distinct threshold and the items (folded names) judged against it."""
    from pytest_gpufabric.signoff.plan import fold

    items: dict[float, list[str]] = {}
    for item, value in by_item.items():
        items.setdefault(value, []).append(item)
    return {value: fold(names) for value, names in sorted(items.items())}


def collectives(curves: pd.DataFrame, thresholds: dict[str, dict[str, float]], titles: dict[str, str],
                have_recording: bool) -> str:
    if curves.empty:
        note = ("No collective output in the recording." if have_recording else
                "Per-size bus bandwidth comes from the recorded outputs: give --recording DIR (or run with --record/--replay).")
        return section("collectives", "Collectives: bus bandwidth vs message size", [f"<p>{escape(note)}</p>"])
    curves = curves.assign(label=curves["run"].astype(str) + " " + curves["collective"].str.replace("_perf", "", regex=False))
    body = []
    for check_id, group in curves.groupby("check_id", sort=True):
        title = titles.get(str(check_id), "")
        groups = threshold_groups({item: value for item, value in thresholds.get(str(check_id), {}).items()
                                   if item in set(group["run"])})
        png = busbw_png(group, title=f"{check_id} {title}", thresholds=groups)
        data = {"class": "collective", "data-check": check_id, "data-runs": group["label"].nunique(),
                "data-threshold": min(groups) if groups else None,
                "data-thresholds": "; ".join(f"{value:g}={names}" for value, names in groups.items()) or None,
                "id": f"collective-{check_id}"}
        caption = f"{check_id} {title}: in-place bus bandwidth per message size" + (
            "; " + "; ".join(f"threshold {value:g} GB/s for {names}" for value, names in groups.items()) if groups
            else "; no busbw threshold for this check")
        body.append(f"<figure{attrs(data)}>{image(png_data_uri(png), caption)}<figcaption>{escape(caption)}</figcaption></figure>")
    return section("collectives", "Collectives: bus bandwidth vs message size", body,
                   "One line per run (item and collective), read from the recorded nccl-tests/rccl-tests tables.")
