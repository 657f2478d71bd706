"""Outliers: values that stand out from their peers, even when they pass their threshold.

A value's peers are the values of the same check, metric, unit and rail whose nodes are in the same group: the
same thresholds profile (a mixed cluster compares H100 VMs with H100 VMs), and for a NIC pair the same path (both
NICs on one leaf switch, or across leaves: one hop more, another latency); a switch port's peers are the ports of
its switch. A value is an outlier when it is
worse than the median of its peers by more than ``k`` robust deviations (the MAD scaled by 1.4826, the standard
deviation of a normal distribution) and by more than ``min_gap`` of the median, in a group of at least
``min_peers`` values (``fleet.rules.OutlierRule`` of the node's profile). Worse is lower for a value judged
with ``>=``/``>`` (bandwidth), higher for ``<=``/``<`` (latency); values judged for equality have no outliers.
The median and the MAD ignore up to half of the group being bad, so a bad NIC (255 slow pairs of 32,640) or a
bad cable moves neither.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pytest_gpufabric.fleet.rules import OutlierRule

MAD_SCALE = 1.4826  # 1 / the 0.75 quantile of the standard normal distribution: MAD -> standard deviation
HIGHER_IS_BETTER = frozenset({">=", ">"})
LOWER_IS_BETTER = frozenset({"<=", "<"})
SAME_LEAF, ACROSS_LEAVES = "same leaf", "across leaves"
OUTLIER_COLUMNS = ("kind", "check_id", "metric", "unit", "op", "rail", "group", "item", "node_a", "nic_a", "node_b",
                   "nic_b", "value", "median", "mad", "gap", "score", "peers", "passed", "verdict", "node_id")


def _codes(*columns: pd.Series) -> np.ndarray:
    """One integer per distinct combination of the columns' values (a groupby key that hashes no text)."""
    key = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
    for column in columns:
        codes, uniques = pd.factorize(column, use_na_sentinel=False)
        key = key * max(len(uniques), 1) + codes
    return key


def _per_distinct(values: pd.Series, function: Callable[[Any], Any]) -> np.ndarray:
    """``function`` of each row's value, computed once per distinct value."""
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    table = np.empty(len(uniques), dtype=object)
    table[:] = [function(value) for value in uniques]
    return table[codes]


@dataclass(frozen=True)
class PeerGroups:
    """Which group a node (or a NIC pair) belongs to: its profile, and for a pair whether both NICs share a leaf."""

    default_profile: str
    node_profiles: Mapping[str, str]
    leaves: Mapping[str, str]  # "node/nic" -> leaf switch

    def profiles(self, nodes: pd.Series) -> np.ndarray:
        return _per_distinct(nodes, lambda node: self.node_profiles.get(node, self.default_profile))

    def _leaves(self, nodes: pd.Series, nics: pd.Series) -> np.ndarray:
        return _per_combination((nodes.to_numpy(), nics.to_numpy()), lambda node, nic: self.leaves.get(f"{node}/{nic}"))

    def of_items(self, frame: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
        """(group label, profile) of item values (column ``node``): a node's profile; a switch's ports are peers
        of each other only (switches of another OS or model are configured otherwise)."""
        profile = pd.Series(self.profiles(frame["node"]), index=frame.index)
        switches = frozenset(self.leaves.values())
        label = _per_distinct(frame["node"], lambda node: f"switch {node}" if node in switches else None)
        return pd.Series(label, index=frame.index).fillna(profile), profile

    def of_pairs(self, frame: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
        """(group label, profile of the first end) of NIC-pair rows."""
        profile_a, profile_b = self.profiles(frame["node_a"]), self.profiles(frame["node_b"])
        path = np.full(len(frame), "", dtype=object)
        if self.leaves:
            leaf_a, leaf_b = self._leaves(frame["node_a"], frame["nic_a"]), self._leaves(frame["node_b"], frame["nic_b"])
            known = pd.notna(leaf_a) & pd.notna(leaf_b)
            path = np.where(known, np.where(leaf_a == leaf_b, SAME_LEAF, ACROSS_LEAVES), "leaf unknown").astype(object)
        label = _per_combination((profile_a, profile_b, path), _group_label)
        return pd.Series(label, index=frame.index), pd.Series(profile_a, index=frame.index)


def _group_label(profile_a: str, profile_b: str, path: str) -> str:
    profiles = profile_a if profile_a == profile_b else f"{profile_a} + {profile_b}"
    return f"{profiles}, {path}" if path else profiles


def _per_combination(columns: tuple[np.ndarray, ...], function: Callable[..., Any]) -> np.ndarray:
    """``function`` of each row's values, computed once per distinct combination of them."""
    key = _codes(*(pd.Series(column) for column in columns))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    table = np.empty(len(first), dtype=object)
    table[:] = [function(*(column[row] for column in columns)) for row in first]
    return table[inverse.reshape(-1)]


def _rule_columns(profiles: pd.Series, rule_of: Callable[[str], OutlierRule | None]) -> pd.DataFrame:
    """k, min_gap, min_peers and verdict of each row's profile (NaN and None where the profile has no rule)."""
    rules = {name: rule_of(name) for name in profiles.unique()}
    table = pd.DataFrame({name: (r.k, r.min_gap, r.min_peers, r.verdict) if r else (np.nan, np.nan, np.nan, None)
                          for name, r in rules.items()}, index=["k", "min_gap", "min_peers", "verdict"]).T
    return table.loc[profiles.to_numpy()].set_axis(profiles.index)


@dataclass(frozen=True)
class Judgement:
    """The outlier judgement of every row of a frame (index aligned with it; NaN where not judged): the median
    of the row's peers, the gap (fraction of that median, worse is positive), the rule's ``min_gap`` and
    whether the row is an outlier; ``found`` holds the outlier rows with their group, MAD, score and verdict."""

    median: pd.Series
    gap: pd.Series
    min_gap: pd.Series
    outlier: pd.Series
    found: pd.DataFrame


def judge(frame: pd.DataFrame, groups: tuple[pd.Series, pd.Series], rule_of: Callable[[str], OutlierRule | None]) -> Judgement:
    """Judge ``frame`` (columns check_id, metric, unit, op, rail, value, ...); ``groups`` is (group label,
    profile) per row (``PeerGroups``)."""
    label, profile = groups
    judged = frame["op"].isin(HIGHER_IS_BETTER | LOWER_IS_BETTER) & frame["value"].notna()
    data = frame[judged].assign(group=label[judged], profile=profile[judged])
    nothing = pd.Series(np.nan, index=frame.index)
    if data.empty:
        found = data.drop(columns=["profile"]).assign(median=[], mad=[], gap=[], score=[], peers=[], verdict=[])
        return Judgement(nothing, nothing, nothing, pd.Series(False, index=frame.index), found)
    keys = _codes(*(data[key] for key in ("check_id", "metric", "unit", "rail", "group")))
    by_group = data["value"].groupby(keys, sort=False)
    median = by_group.transform("median")
    mad = (data["value"] - median).abs().groupby(keys, sort=False).transform("median")
    peers = by_group.transform("size")
    worse = pd.Series(np.where(data["op"].isin(LOWER_IS_BETTER), data["value"] - median, median - data["value"]),
                      index=data.index)
    rules = _rule_columns(data["profile"], rule_of)
    min_gap = rules["min_gap"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = worse / median.abs()
        score = pd.Series(np.where(mad > 0, worse / (MAD_SCALE * mad), np.where(worse > 0, np.inf, 0.0)), index=data.index)
    flagged = ((peers >= rules["min_peers"].astype(float)) & (worse > 0) & (gap > min_gap)
               & (worse > rules["k"].astype(float) * MAD_SCALE * mad))
    found = data[flagged].assign(median=median[flagged], mad=mad[flagged], gap=gap[flagged], score=score[flagged],
                                 peers=peers[flagged], verdict=rules["verdict"][flagged]).drop(columns=["profile"])
    return Judgement(median.reindex(frame.index), gap.reindex(frame.index), min_gap.reindex(frame.index),
                     flagged.reindex(frame.index, fill_value=False).astype(bool), found)


def pair_outliers(pairs: pd.DataFrame, peers: PeerGroups, rule_of: Callable[[str], OutlierRule | None]) -> Judgement:
    """The judgement of the NIC-pair values (one row per check, metric and NIC pair: its worst direction); its
    outlier rows carry ``OUTLIER_COLUMNS`` and ``row``, their index in ``pairs``."""
    judgement = judge(pairs, peers.of_pairs(pairs), rule_of)
    found = judgement.found
    item = (found["node_a"].astype(str) + "/" + found["nic_a"].astype(str) + " <-> " + found["node_b"].astype(str) + "/"
            + found["nic_b"].astype(str))
    found = found.assign(kind="pair", item=item, row=found.index).reindex(columns=[*OUTLIER_COLUMNS, "row"])
    return Judgement(judgement.median, judgement.gap, judgement.min_gap, judgement.outlier, found)


def item_outliers(values: pd.DataFrame, peers: PeerGroups, rule_of: Callable[[str], OutlierRule | None]) -> pd.DataFrame:
    """Outliers among the other values (one row per item and value: a NIC's, a node's, a node pair's)."""
    found = judge(values, peers.of_items(values), rule_of).found
    return found.assign(kind="item", node_a=found["node"], item=found["where"]).reindex(columns=list(OUTLIER_COLUMNS))


def combined(pair_found: pd.DataFrame, item_found: pd.DataFrame) -> pd.DataFrame:
    """Every outlier of a run (``OUTLIER_COLUMNS``): NIC pairs first, then the other values, worst first."""
    frames = [frame.reindex(columns=list(OUTLIER_COLUMNS)) for frame in (pair_found, item_found) if not frame.empty]
    if not frames:
        return pd.DataFrame(columns=list(OUTLIER_COLUMNS))
    found = pd.concat(frames, ignore_index=True)
    return found.sort_values(["kind", "check_id", "metric", "gap"], ascending=[False, True, True, False],
                             kind="stable").reset_index(drop=True)
