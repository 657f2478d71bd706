"""What the report keeps of each record while the results file is read, so that a run of 256 nodes x 8 rails
with every pair check (a results file of gigabytes) fits in memory and time.

Each record is read once: its NIC-pair values become rows of the pair table (``pairs.record_pair_rows``), its
numeric values are added to the fleet statistics (per check, metric, unit and rail) and, where they name no NIC
pair, to the item values judged for outliers. A record that passed (or was skipped) is then kept without its
details: no NIC-pair entries, no commands, of its measurements only the texts (versions); the report shows
the details of failures only. Records of collectives are kept whole (their recorded outputs give the bus
bandwidth curves), failed and unmeasured records too. Repeated values are kept once, the rows as small codes.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pytest_gpufabric.reporting.acceptance.collectives import has_curves
from pytest_gpufabric.reporting.acceptance.measurements import MEASUREMENT_COLUMNS
from pytest_gpufabric.reporting.acceptance.model import nodes_of
from pytest_gpufabric.reporting.acceptance.pairs import (
    PAIR_COLUMNS,
    entry_ends,
    entry_metric,
    entry_static,
    parse_nic_pair,
    record_pair_rows,
)

NO_RAIL = -1  # the rail of a value that belongs to no NIC (a node's, a switch's, the cluster's)
ORDERING_OPS = frozenset({">=", ">", "<=", "<"})
ITEM_VALUE_COLUMNS = ("check_id", "metric", "unit", "op", "rail", "node", "item", "where", "value", "passed", "node_id")
SHARED_TEXTS = ("check_id", "title", "outcome", "expected", "unit", "source", "hint", "scope")
KEPT_WHOLE = frozenset({"failed", "error"})


class _Codes:
    """Small integer codes for repeated values (node names, checks, sources), and the values back."""

    def __init__(self) -> None:
        self._code: dict[Any, int] = {}
        self.values: list[Any] = []

    def __call__(self, value: Any) -> int:
        code = self._code.get(value)
        if code is None:
            code = self._code[value] = len(self.values)
            self.values.append(value)
        return code

    def column(self, codes: array[int], part: int | None = None) -> np.ndarray:
        """The values of ``codes`` (one object per distinct value, shared by every row); ``part``: that element
        of tuple values."""
        table = np.empty(len(self.values), dtype=object)
        table[:] = self.values if part is None else [value[part] for value in self.values]
        return table[np.frombuffer(codes, dtype=np.int32)] if len(codes) else np.empty(0, dtype=object)


class LongTable:
    """Rows of a long table kept column by column: the values of ``plain`` columns as they are, the others as
    codes (they repeat: items, checks, nodes, units, sources)."""

    def __init__(self, columns: Sequence[str], plain: Sequence[str]) -> None:
        self.columns = tuple(columns)
        self._plain = frozenset(plain)
        self._codes = {name: _Codes() for name in self.columns if name not in self._plain}
        self._data: dict[str, Any] = {name: [] if name in self._plain else array("i") for name in self.columns}

    def add(self, row: Sequence[Any]) -> None:
        for name, value in zip(self.columns, row):
            codes = self._codes.get(name)
            self._data[name].append(value if codes is None else codes(value))

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({name: (pd.Series(self._data[name], dtype=object) if name in self._plain
                                    else self._codes[name].column(self._data[name])) for name in self.columns})


class RunDigest:
    """Pair rows, item values and fleet statistics values of a run, fed one record at a time (``take``); with
    ``measurement_rows``, also the rows of the measurements table (``measurements.MEASUREMENT_COLUMNS``) of each
    record before its details are dropped."""

    def __init__(self, rails: dict[str, int],
                 measurement_rows: Callable[[dict[str, Any]], Iterable[Sequence[Any]]] | None = None) -> None:
        self.rails = rails
        self._measurement_rows = measurement_rows
        self._measurements = LongTable(MEASUREMENT_COLUMNS, ("value", "threshold"))
        self._names = _Codes()  # node, NIC names, rails, node ids
        self._texts: dict[str, str] = {}
        self._static = _Codes()  # (check, metric, unit, op, threshold, expected, source) of a pair row
        self._ends = _Codes()  # (rail, node_a, nic_a, node_b, nic_b) of a pair row
        self._pair_codes = {name: array("i") for name in ("static", "ends", "node_id")}
        self._pair_values = array("d")
        self._pair_passed = array("b")
        self._item_rows: list[tuple[Any, ...]] = []
        self._item_values = array("d")
        self.values: dict[tuple[str, str, str, int], array[float]] = {}  # (check, metric, unit, rail) -> values
        self._pairs: pd.DataFrame | None = None

    def take(self, record: dict[str, Any]) -> dict[str, Any]:
        """Digest one record read from a results file and return what the report keeps of it (the record itself,
        or its summary: the record is changed in place, so it must be nobody else's)."""
        self.add(record)
        if self._measurement_rows is not None:
            for row in self._measurement_rows(record):
                self._measurements.add(row)
        if record.get("outcome") in KEPT_WHOLE or has_curves(record.get("check_id") or ""):
            return record
        return self._summary(record)

    def add(self, record: dict[str, Any]) -> None:
        """Digest one record, leaving it as it is."""
        check_id = record.get("check_id") or ""
        entries = record.get("pairs") or ()
        node_id = self._names(record.get("node_id"))
        if entries:
            self._add_entries(check_id, node_id, entries)
        else:
            for row in record_pair_rows(record, self.rails):
                self._add_pair_row(row[:7], row[7:12], row[12], row[13], node_id)
            self._add_item(check_id, record)

    def _summary(self, record: dict[str, Any]) -> dict[str, Any]:
        """A passed or skipped record without its details, its repeated texts shared (the record read from the
        file is changed in place: nothing else holds it)."""
        record.pop("pairs", None)
        record.pop("commands", None)
        measurements = record.pop("measurements", None)
        for key in SHARED_TEXTS:
            value = record.get(key)
            if value.__class__ is str:
                record[key] = self._texts.setdefault(value, value)
        texts = [m for m in measurements or () if m.get("measured").__class__ is str]
        if texts:
            record["measurements"] = texts
        return record

    def _add_entries(self, check_id: str, node_id: int, entries: Iterable[dict[str, Any]]) -> None:
        """The NIC pairs of a node-pair record: one pair row each, and every measurement to the statistics (the
        inner loop of a report at scale: millions of entries)."""
        values = self.values
        for entry in entries:
            rail = entry.get("rail")
            if rail.__class__ is not int:
                rail = NO_RAIL
            for m in entry.get("measurements") or ():
                value = m.get("measured")
                if value.__class__ is float or value.__class__ is int:
                    key = (check_id, m.get("name"), m.get("unit") or "", rail)
                    found = values.get(key)
                    if found is None:
                        found = values[key] = array("d")
                    found.append(value)
            metric = entry_metric(entry)
            if metric is not None:
                self._add_pair_row(entry_static(check_id, entry, metric[0]), entry_ends(entry), metric[1],
                                   entry.get("outcome") == "passed", node_id)

    def _add_pair_row(self, static: tuple[Any, ...], ends: tuple[Any, ...], value: float, passed: bool, node_id: int) -> None:
        codes = self._pair_codes
        threshold = static[4]
        codes["static"].append(self._static(static if threshold.__class__ is not list else
                                            (*static[:4], tuple(threshold), *static[5:])))
        codes["ends"].append(self._ends(ends))
        codes["node_id"].append(node_id)
        self._pair_values.append(value)
        self._pair_passed.append(1 if passed else 0)

    def _rail_of(self, item: str, where: str) -> int:
        rail = self.rails.get(where.partition(" ")[0])  # "node01/bnxt_re0 (192.168.1.1) -> ..."
        if rail is not None:
            return rail
        for name in (where, item):
            ends = parse_nic_pair(name)
            nic = ends[0] if ends else name.split(" ", 1)[0].split("~", 1)[0]
            rail = self.rails.get(nic)
            if rail is not None:
                return rail
        return NO_RAIL

    def _add_item(self, check_id: str, record: dict[str, Any]) -> None:
        """A record without NIC-pair entries: every numeric value to the statistics, and those of an ordering
        comparison that name no NIC pair to the item values (the NIC-pair ones are pair rows already)."""
        item = str(record.get("item") or "")
        node: str | None = None
        values = self.values
        for m in record.get("measurements") or ():
            value = m.get("measured")
            if value.__class__ is not float and value.__class__ is not int:  # bool and text are no statistics
                continue
            where = m.get("where") or item
            rail = self._rail_of(item, where)
            key = (check_id, m.get("name"), m.get("unit") or "", rail)
            found = values.get(key)
            if found is None:
                found = values[key] = array("d")
            found.append(value)
            if m.get("op") not in ORDERING_OPS or parse_nic_pair(where) is not None:
                continue
            if node is None:
                node = (nodes_of(item) or ("",))[0]
            self._item_rows.append((check_id, key[1], key[2], m.get("op"), rail, node, item, where, None,
                                    bool(m.get("passed")), record.get("node_id")))
            self._item_values.append(value)

    def pairs_frame(self) -> pd.DataFrame:
        """The pair table (``PAIR_COLUMNS``), as ``model.build_model`` takes it (built once, when every record is in)."""
        if self._pairs is not None:
            return self._pairs
        columns: dict[str, Any] = {name: self._static.column(self._pair_codes["static"], i)
                                   for i, name in enumerate(PAIR_COLUMNS[:7])}
        columns.update({name: self._ends.column(self._pair_codes["ends"], i)
                        for i, name in enumerate(("rail", "node_a", "nic_a", "node_b", "nic_b"))})
        columns["node_id"] = self._names.column(self._pair_codes["node_id"])
        columns["value"] = np.frombuffer(self._pair_values, dtype=float) if self._pair_values else np.empty(0)
        columns["passed"] = np.frombuffer(self._pair_passed, dtype=np.int8).astype(bool) if self._pair_passed else np.empty(0, bool)
        self._pairs = pd.DataFrame({name: columns[name] for name in PAIR_COLUMNS})
        return self._pairs

    def measurements_frame(self) -> pd.DataFrame:
        """Every judged value of the records taken (one row each; empty without ``measurement_rows``)."""
        return self._measurements.frame()

    def item_values_frame(self) -> pd.DataFrame:
        """One row per numeric value of an ordering comparison that names no NIC pair (``ITEM_VALUE_COLUMNS``)."""
        frame = pd.DataFrame(self._item_rows, columns=list(ITEM_VALUE_COLUMNS))
        frame["value"] = np.frombuffer(self._item_values, dtype=float) if self._item_values else np.empty(0)
        frame["passed"] = frame["passed"].astype(bool)
        frame["rail"] = frame["rail"].astype(int)
        return frame
