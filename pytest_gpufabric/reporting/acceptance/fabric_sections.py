"""Collective bus bandwidth curves (the NIC-pair views are ``pair_views``)."""

from __future__ import annotations

from html import escape

import pandas as pd

from pytest_gpufabric.reporting.acceptance.figures import busbw_png, png_data_uri
from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, image, section


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
