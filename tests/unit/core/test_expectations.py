"""Threshold profiles: typed values, comparisons, overrides, and missing thresholds as errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.errors import ThresholdMissing, UsageError
from pytest_gpufabric.expectations import apply_site_overrides, compare, known_profiles, load_profile

REPO = Path(__file__).resolve().parents[3]


def write_profile(tmp_path: Path, body: str, name: str = "p") -> Path:
    (tmp_path / f"{name}.yaml").write_text(f"profile: {name}\n{body}", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("measured", "op", "expected", "holds"),
    [
        (380.1, ">=", 380, True),
        (379.99, ">=", 380, False),
        ("400", ">=", 380, False),  # a string is never a number: no silent pass
        (True, ">=", 0, False),
        (float("nan"), ">=", 0, False),
        (9000, "==", 9000, True),
        (1500, "==", 9000, False),
        ("passthrough", "in", ["passthrough", "off"], True),
        ("translated", "in", ["passthrough", "off"], False),
        ("1.10.3", "version>=", "1.10.2", True),
        ("1.9.9", "version>=", "1.10.2", False),
        ("232.0.155.5", "version==", "232.0.155.5", True),
    ],
    ids=lambda v: repr(v),
)
def test_compare(measured: object, op: str, expected: object, holds: bool) -> None:
    assert compare(measured, op, expected) is holds


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        ("expectations:\n  LNK-005:\n    mtu: {op: '>=', value: '9000', source: S0}\n", "needs a number"),
        ("expectations:\n  LNK-005:\n    mtu: {op: '==', value: 9000}\n", "missing ['source']"),
        ("expectations:\n  LNK-005:\n    mtu: {op: '~', value: 9000, source: S0}\n", "unknown op '~'"),
        ("expectations:\n  LNK-005:\n    mtu: {op: in, value: 9000, source: S0}\n", "needs a list"),
        ("expectations:\n  LNK-005:\n    mtu: {op: '==', value: 9000, source: S0, colour: red}\n", "unknown keys ['colour']"),
        ("expectations:\n  lnk5:\n    mtu: {op: '==', value: 9000, source: S0}\n", "expected a check id"),
        ("bogus: 1\n", "unknown keys ['bogus']"),
        ("test_times:\n  PERF-002: {seconds: 0, source: S0}\n", "expected a positive number"),
        ("test_times:\n  PERF-002: {seconds: 7}\n", "expected a check id mapping to {seconds, source}"),
        ("test_times:\n  PERF-002: {seconds: 7, source: ' '}\n", "empty source"),
        ("expectations: [\n", "not valid YAML"),
    ],
    ids=["string-threshold", "no-source", "bad-op", "in-not-list", "unknown-key", "bad-check-id", "bad-top-key", "time-zero",
         "time-no-source", "time-empty-source", "bad-yaml"],
)
def test_broken_profiles_are_one_line_usage_errors(tmp_path: Path, body: str, phrase: str) -> None:
    with pytest.raises(UsageError) as info:
        load_profile(write_profile(tmp_path, body), "p")
    assert phrase in str(info.value)
    assert "\n" not in str(info.value)


def test_unknown_profile_lists_known_ones(tmp_path: Path) -> None:
    write_profile(tmp_path, "expectations: {}\n", name="known")
    with pytest.raises(UsageError, match=r"unknown thresholds profile 'nope'.*known profiles: known"):
        load_profile(tmp_path, "nope")


def test_missing_threshold_is_an_error_not_a_pass(tmp_path: Path) -> None:
    profile = load_profile(write_profile(tmp_path, "expectations: {}\n"), "p")
    with pytest.raises(ThresholdMissing, match="no expectation LNK-005.mtu"):
        profile.get("LNK-005", "mtu")


def test_site_override_keeps_comparison_and_cites_both(tmp_path: Path) -> None:
    body = "expectations:\n  PERF-002:\n    bw: {op: '>=', value: 380, unit: Gb/s, source: S4 NIC to NIC}\n"
    profile = load_profile(write_profile(tmp_path, body), "p").with_overrides({"PERF-002": {"bw": 390}}, "site.yaml")
    exp = profile.get("PERF-002", "bw")
    assert (exp.op, exp.value, exp.unit) == (">=", 390, "Gb/s")
    assert "site.yaml" in exp.source and "S4 NIC to NIC" in exp.source
    with pytest.raises(UsageError, match="needs a number"):
        profile.with_overrides({"PERF-002": {"bw": "fast"}}, "site.yaml")


@pytest.mark.parametrize("name", known_profiles(REPO / "thresholds"))
def test_bundled_profiles_load_and_cite_sources(name: str) -> None:
    profile = load_profile(REPO / "thresholds", name)
    assert profile.expectations
    for values in profile.expectations.values():
        for exp in values.values():
            assert exp.source.strip()


def test_fragments_merge_and_refuse_duplicates(tmp_path: Path) -> None:
    write_profile(tmp_path, "expectations:\n  LNK-005:\n    mtu: {op: '==', value: 9000, source: S0}\n")
    (tmp_path / "p.d").mkdir()
    (tmp_path / "p.d" / "perf.yaml").write_text("expectations:\n  PERF-002:\n    bw: {op: '>=', value: 380, source: S4}\n")
    profile = load_profile(tmp_path, "p")
    assert profile.get("PERF-002", "bw").value == 380 and profile.get("LNK-005", "mtu").value == 9000
    (tmp_path / "p.d" / "twice.yaml").write_text("expectations:\n  LNK-005:\n    mtu: {op: '==', value: 1500, source: S0}\n")
    with pytest.raises(UsageError, match="defined twice"):
        load_profile(tmp_path, "p")


def test_site_overrides_reach_the_profiles_that_define_them(tmp_path: Path) -> None:
    write_profile(tmp_path, "expectations:\n  PERF-002:\n    bw: {op: '>=', value: 380, unit: Gb/s, source: S4}\n", name="a")
    write_profile(tmp_path, "expectations:\n  COLL-001:\n    busbw: {op: '>=', value: 304, unit: GB/s, source: S4}\n", name="b")
    profiles = {name: load_profile(tmp_path, name) for name in ("a", "b")}
    merged = apply_site_overrides(profiles, {"PERF-002": {"bw": 390}}, "site.yaml")
    assert merged["a"].get("PERF-002", "bw").value == 390
    assert merged["b"].get("COLL-001", "busbw").value == 304
    with pytest.raises(UsageError, match="thresholds.PERF-002.bandwidth: defined by none of the profiles"):
        apply_site_overrides(profiles, {"PERF-002": {"bandwidth": 390}}, "site.yaml")
