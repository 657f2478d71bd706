"""The fleet rules of a thresholds profile: when a value is an outlier among its peers (``outliers:``) and how
much a value may change between two runs before it is a regression (``compare:``).

Both are optional sections of ``thresholds/<profile>.yaml``; like every number of a profile, each carries its
source, and its rationale in ``note``::

    outliers:
      verdict: warn          # warn: flagged, listed, localized, the verdict unchanged; fail: an outlier fails the run
      k: 3.5                 # robust deviations (MAD x 1.4826) worse than the median of the peers
      min_gap: 0.05          # and at least this fraction of the median
      min_peers: 5           # fewer values than this in a peer group: no outlier is judged there
      source: "..."
      note: "..."
    compare:
      tolerance: 0.05        # relative change beyond which a value regressed (or improved)
      source: "..."
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pytest_gpufabric.errors import UsageError

OUTLIER_VERDICTS = ("warn", "fail")
_OUTLIER_KEYS = {"verdict", "k", "min_gap", "min_peers", "source", "note"}
_COMPARE_KEYS = {"tolerance", "source", "note"}


@dataclass(frozen=True)
class OutlierRule:
    """When a value is an outlier: more than ``k`` robust deviations and ``min_gap`` of the median worse than
    the median of at least ``min_peers`` peers; ``verdict`` says whether an outlier only warns or fails the run."""

    verdict: str
    k: float
    min_gap: float
    min_peers: int
    source: str
    note: str = ""

    @property
    def fails(self) -> bool:
        return self.verdict == "fail"

    def describe(self) -> str:
        return (f"more than {self.k:g} robust deviations (MAD x 1.4826) and {self.min_gap:.0%} worse than the median "
                f"of at least {self.min_peers} peers; outliers {self.verdict}")

    def as_plain(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_plain(cls, data: Any) -> OutlierRule | None:
        try:
            return cls(str(data["verdict"]), float(data["k"]), float(data["min_gap"]), int(data["min_peers"]),
                       str(data["source"]), str(data.get("note", "")))
        except (TypeError, KeyError, ValueError):
            return None


@dataclass(frozen=True)
class CompareRule:
    """A value changed by more than ``tolerance`` (relative to the older run) regressed or improved."""

    tolerance: float
    source: str
    note: str = ""

    def as_plain(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_plain(cls, data: Any) -> CompareRule | None:
        try:
            return cls(float(data["tolerance"]), str(data["source"]), str(data.get("note", "")))
        except (TypeError, KeyError, ValueError):
            return None


def _number(where: str, value: Any, *, low: float, high: float | None = None, integer: bool = False) -> float:
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise UsageError(f"{where}: expected {kind}, got {value!r}")
    if not (value > low if not integer else value >= low) or (high is not None and not value < high):
        bounds = f">= {low:g}" if integer else f"> {low:g}" + (f" and < {high:g}" if high is not None else "")
        raise UsageError(f"{where}: expected {kind} {bounds}, got {value!r}")
    return float(value)


def _section(path: Path, name: str, raw: Any, keys: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: {name}: expected a mapping with keys {sorted(keys)}")
    unknown = set(raw) - keys
    if unknown:
        raise UsageError(f"{path}: {name}: unknown keys {sorted(unknown)} (allowed: {sorted(keys)})")
    missing = required - set(raw)
    if missing:
        raise UsageError(f"{path}: {name}: missing {sorted(missing)}")
    if not str(raw["source"]).strip():
        raise UsageError(f"{path}: {name}.source: empty source (cite where the value comes from)")
    return raw


def parse_outlier_rule(path: Path, raw: Any) -> OutlierRule:
    """The ``outliers:`` section of a profile; every problem is a one-line UsageError."""
    spec = _section(path, "outliers", raw, _OUTLIER_KEYS, _OUTLIER_KEYS - {"note"})
    if spec["verdict"] not in OUTLIER_VERDICTS:
        raise UsageError(f"{path}: outliers.verdict: expected one of {', '.join(OUTLIER_VERDICTS)}, got {spec['verdict']!r}")
    return OutlierRule(
        verdict=str(spec["verdict"]),
        k=_number(f"{path}: outliers.k", spec["k"], low=0.0),
        min_gap=_number(f"{path}: outliers.min_gap", spec["min_gap"], low=0.0, high=1.0),
        min_peers=int(_number(f"{path}: outliers.min_peers", spec["min_peers"], low=3, integer=True)),
        source=str(spec["source"]),
        note=str(spec.get("note") or ""),
    )


def parse_compare_rule(path: Path, raw: Any) -> CompareRule:
    """The ``compare:`` section of a profile; every problem is a one-line UsageError."""
    spec = _section(path, "compare", raw, _COMPARE_KEYS, _COMPARE_KEYS - {"note"})
    tolerance = _number(f"{path}: compare.tolerance", spec["tolerance"], low=0.0, high=1.0)
    return CompareRule(tolerance=tolerance, source=str(spec["source"]), note=str(spec.get("note") or ""))
