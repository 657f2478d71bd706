"""Collective bus bandwidth curves (the NIC-pair views are ``pair_views``)."""

from __future__ import annotations

from html import escape

import pandas as pd

from pytest_gpufabric.reporting.acceptance.figures import busbw_png, png_data_uri
from pytest_gpufabric.reporting.acceptance.htmlkit import attrs, image, section


def collectives(curves: pd.DataFrame, thresholds: dict[str, float], titles: dict[str, str], have_recording: bool) -> str:
    if curves.empty:
        note = ("No collective output in the recording." if have_recording else
                "Per-size bus bandwidth comes from the recorded outputs: give --recording DIR (or run with --record/--replay).")
        return section("collectives", "Collectives: bus bandwidth vs message size", [f"<p>{escape(note)}</p>"])
    curves = curves.assign(label=curves["run"].astype(str) + " " + curves["collective"].str.replace("_perf", "", regex=False))
    body = []
    for check_id, group in curves.groupby("check_id", sort=True):
        title = titles.get(str(check_id), "")
        png = busbw_png(group, title=f"{check_id} {title}", threshold=thresholds.get(str(check_id)))
        threshold = thresholds.get(str(check_id))
        data = {"class": "collective", "data-check": check_id, "data-runs": group["label"].nunique(),
                "data-threshold": threshold, "id": f"collective-{check_id}"}
        caption = f"{check_id} {title}: in-place bus bandwidth per message size" + (
            f"; threshold {threshold:g} GB/s" if threshold is not None else "; no busbw threshold for this check")
        body.append(f"<figure{attrs(data)}>{image(png_data_uri(png), caption)}<figcaption>{escape(caption)}</figcaption></figure>")
    return section("collectives", "Collectives: bus bandwidth vs message size", body,
                   "One line per run (item and collective), read from the recorded nccl-tests/rccl-tests tables.")
