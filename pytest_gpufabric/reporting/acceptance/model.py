"""The report's table model: pandas frames built from the records, behind every output format."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from pytest_gpufabric.reporting.acceptance.pairs import PAIR_COLUMNS, pair_rows
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo

OUTCOMES = ("passed", "failed", "error", "skipped")
OUTCOME_LABELS = {"passed": "passed", "failed": "failed", "error": "not measured", "skipped": "skipped"}
SEVERITY = {"failed": 3, "error": 2, "passed": 1, "skipped": 0}  # the worst outcome colours a matrix cell
AREAS = ("DRV", "GPU", "NVM", "QOS", "PCI", "HOST", "LNK", "NET", "PERF", "COLL", "OSU", "SW", "VM")
ITEM_COLUMNS = ("node_id", "check_id", "area", "title", "item", "outcome", "measured", "expected", "unit", "source",
                "hint", "message")


def _outcome_counts(outcomes: pd.Series) -> dict[str, int]:
    found = outcomes.value_counts()
    return {outcome: int(found.get(outcome, 0)) for outcome in OUTCOMES}


def area_of(check_id: str | None) -> str:
    return (check_id or "").split("-", 1)[0] or "other"


def nodes_of(item: str | None) -> tuple[str, ...]:
    """The nodes (or switches, or the cluster) an item id names: ``node01/bnxt_re0->node02/bnxt_re0`` -> both."""
    if not item:
        return ()
    names = []
    for end in item.split("->"):
        name = end.split("/", 1)[0].split("~", 1)[0].strip()
        if name and name not in names:
            names.append(name)
    return tuple(names)


def _text(value: Any) -> Any:
    """Values of mixed types (numbers, versions, lists) as one column type for the tables."""
    if value is None or isinstance(value, str):
        return value
    return repr(value) if isinstance(value, (list, dict, tuple)) else value


@dataclass(frozen=True)
class ReportModel:
    """Every table of the report; ``records`` keep the raw evidence for the failures and the appendix."""

    info: RunInfo
    records: list[dict[str, Any]]
    items: pd.DataFrame
    pairs: pd.DataFrame
    node_items: pd.DataFrame  # (node, check_id, outcome): one row per node an item touches
    failing_outliers: int = 0  # outliers that passed their thresholds, of profiles whose outliers fail the run

    @property
    def counts(self) -> dict[str, int]:
        return _outcome_counts(self.items["outcome"])

    @property
    def in_scope(self) -> pd.Series:
        """Items of the checks the profile requires (every item when the run information does not say)."""
        required = self.info.required_checks
        if required is None:
            return pd.Series(True, index=self.items.index)
        return self.items["check_id"].isin(required)

    @property
    def scope_counts(self) -> dict[str, int]:
        """Outcome counts of the items in the profile's scope: what the verdict is about."""
        return _outcome_counts(self.items.loc[self.in_scope, "outcome"])

    @property
    def outside_counts(self) -> dict[str, int]:
        """Outcome counts of the items outside the profile's scope (shown, never deciding the verdict)."""
        return _outcome_counts(self.items.loc[~self.in_scope, "outcome"])

    @property
    def accepted(self) -> bool:
        """The run completed, something of the profile's scope passed, nothing in it failed or went unmeasured,
        and no outlier fails it (a profile with ``outliers: {verdict: fail}``)."""
        counts = self.scope_counts
        return (self.info.complete and counts["failed"] == 0 and counts["error"] == 0 and counts["passed"] > 0
                and self.failing_outliers == 0)

    def area_summary(self) -> pd.DataFrame:
        """Per area: items per outcome, in the catalog's area order."""
        table = pd.crosstab(self.items["area"], self.items["outcome"]).reindex(columns=list(OUTCOMES), fill_value=0)
        order = [a for a in AREAS if a in table.index] + sorted(a for a in table.index if a not in AREAS)
        table = table.reindex(order)
        table["total"] = table.sum(axis=1)
        table.index.name = "area"
        return table.astype(int)

    def node_check_matrix(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """Node x check: the worst outcome, the number of items and the number not passed (failed or error)."""
        frame = self.node_items
        worst = frame.assign(severity=frame["outcome"].map(SEVERITY)).pivot_table(
            index="node", columns="check_id", values="severity", aggfunc="max")
        total = frame.pivot_table(index="node", columns="check_id", values="outcome", aggfunc="size")
        bad = frame[frame["outcome"].isin(("failed", "error"))].pivot_table(
            index="node", columns="check_id", values="outcome", aggfunc="size").reindex_like(total)
        return worst, total, bad.fillna(0)

    def failures(self) -> pd.DataFrame:
        """Failed and unmeasured items, failed first, in check order."""
        bad = self.items[self.items["outcome"].isin(("failed", "error"))]
        return bad.sort_values(["outcome", "check_id", "node_id"], ascending=[False, True, True])


def _items(records: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per record, built column by column (one pass per field; no per-row objects)."""
    columns: dict[str, list[Any]] = {name: [r.get(name) for r in records] for name in ITEM_COLUMNS if name != "area"}
    columns["measured"] = [_text(value) for value in columns["measured"]]
    columns["area"] = [area_of(check_id) for check_id in columns["check_id"]]
    return pd.DataFrame({name: pd.Series(columns[name], dtype=object) for name in ITEM_COLUMNS})


def _node_items(items: pd.DataFrame) -> pd.DataFrame:
    rows = [(node, check_id, outcome)
            for item, check_id, outcome in zip(items["item"], items["check_id"], items["outcome"]) if check_id
            for node in nodes_of(item)]
    return pd.DataFrame(rows, columns=["node", "check_id", "outcome"])


def build_model(records: list[dict[str, Any]], info: RunInfo, pairs: pd.DataFrame | None = None) -> ReportModel:
    """The tables of ``records``; ``pairs``, when given, is their pair table already built (``digest.RunDigest``)."""
    items = _items(records)
    if pairs is None:
        pairs = pd.DataFrame(pair_rows(records, info.rails), columns=list(PAIR_COLUMNS))
    return ReportModel(info=info, records=records, items=items, pairs=pairs, node_items=_node_items(items))
