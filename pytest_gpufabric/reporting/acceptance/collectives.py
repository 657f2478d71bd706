"""Collective bus bandwidth per message size, read from the recorded nccl-tests / rccl-tests outputs."""

from __future__ import annotations

from typing import Any

import pandas as pd

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.nccl_tests import parse_nccl_tests
from pytest_gpufabric.reporting.acceptance.recorded import RecordedOutputs

CURVE_COLUMNS = ("check_id", "run", "node", "collective", "size_bytes", "busbw_gbs", "nccl_version")
BUSBW_UNIT = "GB/s"


def _threshold(record: dict[str, Any]) -> float | None:
    for m in record.get("measurements") or ():
        if m.get("unit") == BUSBW_UNIT and isinstance(m.get("threshold"), (int, float)):
            return float(m["threshold"])
    return None


def collective_curves(records: list[dict[str, Any]],
                      recorded: RecordedOutputs) -> tuple[pd.DataFrame, dict[str, dict[str, float]]]:
    """One row per (COLL item, command, size) with the in-place busbw; and per check the busbw threshold of each
    item (node groups on other profiles are judged against other figures)."""
    rows: list[tuple[Any, ...]] = []
    thresholds: dict[str, dict[str, float]] = {}
    for record in records:
        check_id = str(record.get("check_id") or "")
        if not check_id.startswith("COLL-") or not recorded.available:
            continue
        threshold = _threshold(record)
        if threshold is not None:
            thresholds.setdefault(check_id, {})[str(record.get("item"))] = threshold
        for command, episode in recorded.outputs_of(record):
            if episode is None or "_perf" not in str(command.get("command")):
                continue
            try:
                result = parse_nccl_tests(episode.stdout).facts
            except ParseError:
                continue
            run = str(record.get("item"))
            for row in result.rows:
                placement = row.in_place or row.out_of_place
                rows.append((check_id, run, command.get("node"), result.collective or "", row.size_bytes,
                             placement.busbw_gbs, result.nccl_version or result.tests_version))
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS)), thresholds
