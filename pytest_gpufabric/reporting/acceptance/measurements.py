"""Every judged value of the run as one long, pivotable table: item, check, node, NIC, rail, metric, value,
unit, operator, threshold, source, outcome and timestamp (the end of the run that measured it: records carry
no time of their own, so two replays of one recording give identical results files)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from pytest_gpufabric.reporting.acceptance.model import nodes_of
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo

MEASUREMENT_COLUMNS = ("item", "check", "node", "nic", "rail", "metric", "value", "unit", "operator", "threshold",
                       "source", "outcome", "timestamp")


def _nic_of(item: str) -> str | None:
    """The NIC of a NIC or NIC-GPU item (``node01/bnxt_re0~gpu0`` -> ``bnxt_re0``); None for other items."""
    end = item.split("->", 1)[0].split("~", 1)[0]
    node, slash, nic = end.partition("/")
    return nic if slash and not nic.startswith("gpu") else None


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, (str, int, float, bool)) else repr(value)


def _rows(record: dict[str, Any], info: RunInfo | None) -> Iterator[tuple[Any, ...]]:
    check, stamp = record.get("check_id"), (info.finished or info.started) if info else None
    rails = info.rails if info else {}
    entries = record.get("pairs") or ()
    groups = [(str(e.get("pair")), e.get("node_a"), e.get("nic_a"), e.get("rail"), e.get("measurements") or ())
              for e in entries]
    if not entries:
        item = str(record.get("item") or "")
        nodes, nic = nodes_of(item), _nic_of(item)
        node = nodes[0] if nodes else None
        groups = [(item, node, nic, rails.get(f"{node}/{nic}") if nic else None, record.get("measurements") or ())]
    for item, node, nic, rail, measurements in groups:
        for m in measurements:
            yield (item, check, node, nic, rail, m.get("name"), _plain(m.get("measured")), m.get("unit"), m.get("op"),
                   _plain(m.get("threshold")), m.get("source"), "passed" if m.get("passed") else "failed", stamp)


def measurement_table(records: list[dict[str, Any]], runs: dict[str, RunInfo]) -> pd.DataFrame:
    """One row per judged value (per NIC pair for node-pair items), in the records' order."""
    rows = [row for record in records for row in _rows(record, runs.get(str(record.get("run_id"))))]
    frame = pd.DataFrame(rows, columns=list(MEASUREMENT_COLUMNS))
    return frame.astype({"value": object, "threshold": object})
