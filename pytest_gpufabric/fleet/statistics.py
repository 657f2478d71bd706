"""Fleet statistics: every measured value of a run summarized per check, metric, unit and rail (the summary of
Microsoft SuperBench's result analysis: count, min, percentiles, median, max, std, plus the MAD).

``mad`` is the median absolute deviation from the median, unscaled (multiply by 1.4826 for the standard
deviation of a normal distribution, as the outlier rule does). ``std`` is the sample standard deviation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

KEY_COLUMNS = ("check_id", "metric", "unit", "rail")
STAT_COLUMNS = ("count", "min", "p1", "p5", "median", "p95", "max", "std", "mad")
STATISTICS_COLUMNS = KEY_COLUMNS + STAT_COLUMNS
PERCENTILES = (1.0, 5.0, 50.0, 95.0)


def describe(values: Sequence[float] | np.ndarray) -> dict[str, float]:
    """The statistics of one set of values (NaN values are left out; an empty set gives count 0 and NaN)."""
    data = np.asarray(values, dtype=float)
    data = data[np.isfinite(data)]
    if not data.size:
        return {"count": 0, **{name: float("nan") for name in STAT_COLUMNS[1:]}}
    p1, p5, median, p95 = np.percentile(data, PERCENTILES)
    return {"count": int(data.size), "min": float(data.min()), "p1": float(p1), "p5": float(p5), "median": float(median),
            "p95": float(p95), "max": float(data.max()), "std": float(data.std(ddof=1)) if data.size > 1 else 0.0,
            "mad": float(np.median(np.abs(data - median)))}


def fleet_statistics(groups: Mapping[tuple[str, str, str, int], Sequence[float]]) -> pd.DataFrame:
    """One row per (check, metric, unit, rail) with ``STAT_COLUMNS``, sorted by check, metric and rail; the rail
    of a value that belongs to no NIC is -1."""
    rows = [(*key, *describe(values).values()) for key, values in groups.items()]
    frame = pd.DataFrame(rows, columns=list(STATISTICS_COLUMNS))
    frame["count"] = frame["count"].astype(int)
    return frame.sort_values(list(KEY_COLUMNS), kind="stable").reset_index(drop=True)
