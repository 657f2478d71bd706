"""The fleet rules of a profile (outliers, compare): loaded with their source, every problem one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.expectations import load_profile
from pytest_gpufabric.fleet.rules import CompareRule, OutlierRule

REPO = Path(__file__).resolve().parents[3]
RULE = "outliers: {verdict: warn, k: 3.5, min_gap: 0.05, min_peers: 5, source: 'S9 1.2', note: why}\n"


def profile_with(tmp_path: Path, body: str) -> Path:
    (tmp_path / "p.yaml").write_text(f"profile: p\n{body}expectations: {{}}\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name", ["mi300x-thor2", "h100-thor2-vmware", "hgx-h100-thor2"])
def test_shipped_profiles_have_sourced_rules(name: str) -> None:
    profile = load_profile(REPO / "thresholds", name)

    assert profile.outliers == OutlierRule("warn", 3.5, 0.05, 5, profile.outliers.source, profile.outliers.note)
    assert "Iglewicz" in profile.outliers.source and "SuperBench" in profile.outliers.source and profile.outliers.note
    assert profile.compare is not None and profile.compare.tolerance == 0.05 and "SuperBench" in profile.compare.source


def test_rules_are_optional(tmp_path: Path) -> None:
    profile = load_profile(profile_with(tmp_path, ""), "p")

    assert profile.outliers is None and profile.compare is None


def test_rules_round_trip_as_plain_data(tmp_path: Path) -> None:
    profile = load_profile(profile_with(tmp_path, RULE + "compare: {tolerance: 0.1, source: 'S9 2'}\n"), "p")

    assert OutlierRule.from_plain(profile.outliers.as_plain()) == profile.outliers
    assert CompareRule.from_plain(profile.compare.as_plain()) == profile.compare
    assert OutlierRule.from_plain({"k": 1}) is None and CompareRule.from_plain(None) is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("outliers: {verdict: maybe, k: 3, min_gap: 0.05, min_peers: 5, source: s}\n", "outliers.verdict: expected one of warn, fail"),
        ("outliers: {verdict: fail, k: '3', min_gap: 0.05, min_peers: 5, source: s}\n", "outliers.k: expected a number, got '3'"),
        ("outliers: {verdict: fail, k: 0, min_gap: 0.05, min_peers: 5, source: s}\n", "outliers.k: expected a number > 0"),
        ("outliers: {verdict: fail, k: 3, min_gap: 1.5, min_peers: 5, source: s}\n", "outliers.min_gap: expected a number > 0 and < 1"),
        ("outliers: {verdict: fail, k: 3, min_gap: 0.05, min_peers: 2, source: s}\n", "outliers.min_peers: expected an integer >= 3"),
        ("outliers: {verdict: fail, k: 3, min_gap: 0.05, min_peers: 5, source: ' '}\n", "outliers.source: empty source"),
        ("outliers: {verdict: fail, k: 3, min_gap: 0.05, source: s}\n", re.escape("outliers: missing ['min_peers']")),
        ("outliers: {verdict: fail, k: 3, min_gap: 0.05, min_peers: 5, source: s, kk: 1}\n", re.escape("outliers: unknown keys ['kk']")),
        ("compare: {tolerance: 5, source: s}\n", "compare.tolerance: expected a number > 0 and < 1, got 5"),
        ("compare: 0.05\n", "compare: expected a mapping"),
    ],
)
def test_bad_rules_are_one_line_errors(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        load_profile(profile_with(tmp_path, body), "p")

    assert "\n" not in str(caught.value)
