"""Run-to-run comparison: what got worse (or better) since an earlier run, per item and per NIC pair.

Items are matched by their pytest node id (stable, built from inventory names) and NIC pairs by their pair id
inside a node-pair item. A value judged with an ordering comparison (``>=``, ``<=``, ...) regressed when it
moved the wrong way by more than the tolerance, relative to the older value (bandwidth down, latency up), and
improved when it moved the right way by more; other values (versions, settings) that differ are "changed".
Outcomes: a new failure was passed (or skipped) before and failed or could not be measured now; a fixed one
the other way round. Items and NIC pairs present in one run only appeared or vanished.

pytest-benchmark's conventions where they fit: runs are saved files compared by name or id
(``pytest-benchmark compare 0001 0002``), a change is relative to the older run, and a failing comparison
(``--benchmark-compare-fail``) is asked for explicitly (``gpufabric compare --compare-fail``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

HIGHER_IS_BETTER = frozenset({">=", ">"})
LOWER_IS_BETTER = frozenset({"<=", "<"})
NOT_PASSED = frozenset({"failed", "error"})
VALUE_COLUMNS = ("node_id", "check_id", "item", "pair", "metric", "where", "unit", "op", "value", "text")
OUTCOME_COLUMNS = ("node_id", "check_id", "item", "pair", "outcome", "message")
CATEGORIES = ("new failures", "regressions", "fixed failures", "improvements", "appeared", "vanished", "changed")
ROW_COLUMNS = ("category", "check_id", "item", "pair", "metric", "where", "unit", "old", "new", "change", "tolerance",
               "node_id")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


class RunValues:
    """What a comparison needs of one run, fed one record at a time: each item's and NIC pair's outcome, and
    each judged value."""

    def __init__(self) -> None:
        self._outcomes: list[tuple[Any, ...]] = []
        self._values: list[tuple[Any, ...]] = []
        self._texts: dict[str, str] = {}

    def _text(self, value: Any) -> Any:
        return self._texts.setdefault(value, value) if isinstance(value, str) else value

    def _measurements(self, key: tuple[Any, ...], measurements: Iterable[dict[str, Any]]) -> None:
        for m in measurements:
            number = _number(m.get("measured"))
            ordered = m.get("op") in HIGHER_IS_BETTER | LOWER_IS_BETTER and number is not None
            text = None if ordered else repr(m.get("measured"))
            self._values.append((*key, self._text(str(m.get("name"))), str(m.get("where") or ""),
                                 self._text(str(m.get("unit") or "")), self._text(str(m.get("op"))), number, text))

    def take(self, record: dict[str, Any]) -> dict[str, Any]:
        node_id, check_id = self._text(record.get("node_id")), self._text(record.get("check_id"))
        item = str(record.get("item") or "")
        self._outcomes.append((node_id, check_id, item, "", record.get("outcome"), record.get("message")))
        for entry in record.get("pairs") or ():
            pair = str(entry.get("pair") or "")
            self._outcomes.append((node_id, check_id, item, pair, entry.get("outcome"), entry.get("message")))
            self._measurements((node_id, check_id, item, pair), entry.get("measurements") or ())
        if not record.get("pairs"):
            self._measurements((node_id, check_id, item, ""), record.get("measurements") or ())
        return record

    def outcomes(self) -> pd.DataFrame:
        return pd.DataFrame(self._outcomes, columns=list(OUTCOME_COLUMNS)).drop_duplicates(["node_id", "pair"], keep="last")

    def values(self) -> pd.DataFrame:
        return pd.DataFrame(self._values, columns=list(VALUE_COLUMNS)).drop_duplicates(
            ["node_id", "pair", "metric", "where"], keep="last")


@dataclass(frozen=True)
class Comparison:
    """Every difference between two runs, one row each (``ROW_COLUMNS``), in ``CATEGORIES`` order."""

    rows: pd.DataFrame

    def of(self, category: str) -> pd.DataFrame:
        return self.rows[self.rows["category"] == category]

    def counts(self) -> dict[str, int]:
        found = self.rows["category"].value_counts()
        return {category: int(found.get(category, 0)) for category in CATEGORIES}

    @property
    def worse(self) -> bool:
        """Something regressed or newly failed (what ``--compare-fail`` fails on)."""
        counts = self.counts()
        return bool(counts["regressions"] or counts["new failures"])


def _rows(category: str, frame: pd.DataFrame, **columns: str) -> pd.DataFrame:
    """``frame`` as rows of ``category``; ``columns``: a row column taken from another column of ``frame``."""
    return frame.assign(category=category, **{name: frame[source] for name, source in columns.items()}).reindex(
        columns=list(ROW_COLUMNS))


def _outcome_rows(old: pd.DataFrame, new: pd.DataFrame) -> list[pd.DataFrame]:
    both = old.merge(new, on=["node_id", "pair"], how="outer", suffixes=("_old", "_new"), indicator=True)
    for column in ("check_id", "item"):
        both[column] = both[f"{column}_new"].fillna(both[f"{column}_old"])
    was_bad, is_bad = both["outcome_old"].isin(NOT_PASSED), both["outcome_new"].isin(NOT_PASSED)
    present = both["_merge"] == "both"
    new_failures = both[present & ~was_bad & is_bad]
    fixed = both[present & was_bad & (both["outcome_new"] == "passed")]
    return [
        _rows("new failures", new_failures, old="outcome_old", new="outcome_new", where="message_new"),
        _rows("fixed failures", fixed, old="outcome_old", new="outcome_new", where="message_old"),
        _rows("appeared", both[both["_merge"] == "right_only"], new="outcome_new"),
        _rows("vanished", both[both["_merge"] == "left_only"], old="outcome_old"),
    ]


def _value_rows(old: pd.DataFrame, new: pd.DataFrame, tolerance_of: Callable[[pd.Series], pd.Series]) -> list[pd.DataFrame]:
    keys = ["node_id", "pair", "metric", "where"]
    both = old.merge(new.drop(columns=["check_id", "item", "unit", "op"]), on=keys, suffixes=("_old", "_new"))
    numeric = both[both["value_old"].notna() & both["value_new"].notna()]
    before, after = numeric["value_old"].to_numpy(dtype=float), numeric["value_new"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.where(after == before, 0.0, np.where(before == 0, np.sign(after - before) * np.inf,
                                                         (after - before) / np.abs(before)))
    better = np.where(numeric["op"].isin(LOWER_IS_BETTER), -change, change)
    tolerance = tolerance_of(numeric["item"])
    numeric = numeric.assign(change=change, tolerance=tolerance)
    texts = both[both["text_old"].notna() & both["text_new"].notna() & (both["text_old"] != both["text_new"])]
    return [
        _rows("regressions", numeric[better < -tolerance], old="value_old", new="value_new"),
        _rows("improvements", numeric[better > tolerance], old="value_old", new="value_new"),
        _rows("changed", texts, old="text_old", new="text_new"),
    ]


def compare(old: RunValues, new: RunValues, tolerance_of: Callable[[pd.Series], pd.Series]) -> Comparison:
    """The differences from ``old`` to ``new``; ``tolerance_of`` gives the relative tolerance of each value from
    its item id (the profile of the item's first node)."""
    frames = [*_outcome_rows(old.outcomes(), new.outcomes()), *_value_rows(old.values(), new.values(), tolerance_of)]
    rows = pd.concat([frame for frame in frames if not frame.empty] or [pd.DataFrame(columns=list(ROW_COLUMNS))],
                     ignore_index=True)
    order = {category: i for i, category in enumerate(CATEGORIES)}
    magnitude = pd.to_numeric(rows["change"], errors="coerce").abs().fillna(0.0)
    rows = rows.assign(_order=rows["category"].map(order), _size=-magnitude).sort_values(
        ["_order", "_size", "check_id", "node_id", "pair"], kind="stable").drop(columns=["_order", "_size"])
    return Comparison(rows.reset_index(drop=True))
