"""Fleet statistics: count, min, percentiles, median, max, std and MAD per check, metric, unit and rail."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_gpufabric.fleet.statistics import STATISTICS_COLUMNS, describe, fleet_statistics


def test_describe_matches_numpy() -> None:
    values = np.array([770.0, 772.0, 775.0, 776.0, 659.0, 774.0, 773.0])
    found = describe(values)

    assert found["count"] == 7 and found["min"] == 659.0 and found["max"] == 776.0
    assert found["median"] == 773.0
    assert found["mad"] == pytest.approx(np.median(np.abs(values - 773.0)))  # 2.0: the outlier moves it not
    assert found["p1"] == pytest.approx(np.percentile(values, 1)) and found["p95"] == pytest.approx(np.percentile(values, 95))
    assert found["std"] == pytest.approx(values.std(ddof=1))


def test_describe_leaves_out_nan_and_handles_empty() -> None:
    assert describe([1.0, float("nan"), 3.0])["count"] == 2
    empty = describe([])
    assert empty["count"] == 0 and math.isnan(empty["median"])
    assert describe([5.0])["std"] == 0.0


def test_fleet_statistics_one_row_per_key_sorted() -> None:
    frame = fleet_statistics({("PERF-007", "typical_latency_us", "us", 1): [3.0, 3.1],
                              ("PERF-002", "average_bw_gbps", "Gb/s", 2): [775.0, 774.0, 700.0],
                              ("PERF-002", "average_bw_gbps", "Gb/s", -1): [1.0]})

    assert list(frame.columns) == list(STATISTICS_COLUMNS)
    assert frame[["check_id", "rail", "count"]].values.tolist() == [["PERF-002", -1, 1], ["PERF-002", 2, 3], ["PERF-007", 1, 2]]
