"""Fault localization: suspect ends fail with >= 2 partners; a pair failing only together is a suspect link."""

from __future__ import annotations

from pytest_gpufabric.checks.localization import (
    PairOutcome,
    localize,
    split_pair_id,
    summary_lines,
)


def outcome(a: str, b: str, failed: bool, check: str = "PERF-002") -> PairOutcome:
    return PairOutcome(check, a, b, failed)


def test_pair_failing_only_together_is_a_link() -> None:
    result = localize([outcome("n1/re2", "n3/re2", True), outcome("n1/re2", "n2/re2", False), outcome("n2/re2", "n3/re2", False)])
    assert result.suspect_ends == ()
    assert [(link.a, link.b) for link in result.suspect_links] == [("n1/re2", "n3/re2")]


def test_end_failing_with_two_partners_is_suspect_and_explains_its_pairs() -> None:
    result = localize([outcome("n1/re5", "n4/re5", True, "NET-002"), outcome("n2/re5", "n4/re5", True), outcome("n1/re5", "n2/re5", False)])
    assert [(end.end, end.partners, end.checks) for end in result.suspect_ends] == [("n4/re5", ("n1/re5", "n2/re5"), ("NET-002", "PERF-002"))]
    assert result.suspect_links == ()


def test_no_failures_nothing_suspect() -> None:
    result = localize([outcome("a", "b", False)])
    assert result.empty and summary_lines(result) == []


def test_summary_lines_name_ends_and_links() -> None:
    lines = summary_lines(localize([outcome("x", "y", True), outcome("p", "q", True), outcome("p", "r", True)]))
    assert lines[0].startswith("suspect p: fails with 2 partners (q, r)")
    assert lines[1].startswith("suspect link x <-> y")


def test_split_pair_id() -> None:
    assert split_pair_id("node01/bnxt_re0->node02/bnxt_re0") == ("node01/bnxt_re0", "node02/bnxt_re0")
    assert split_pair_id("node01") is None and split_pair_id("->b") is None
