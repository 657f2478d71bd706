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


def outlier(a: str, b: str, check: str = "PERF-002") -> PairOutcome:
    return PairOutcome(check, a, b, False, outlier=True)


def test_an_outlier_with_two_partners_is_an_outlier_suspect() -> None:
    result = localize([outlier("n1/re6", "n8/re6"), outlier("n2/re6", "n8/re6"), outlier("n3/re6", "n8/re6", "PERF-003"),
                       outcome("n1/re6", "n2/re6", False)])

    assert result.suspect_ends == () and result.suspect_links == ()
    assert [(end.end, end.partners, end.checks) for end in result.outlier_ends] == [
        ("n8/re6", ("n1/re6", "n2/re6", "n3/re6"), ("PERF-002", "PERF-003"))]
    assert result.outlier_links == () and not result.empty
    assert summary_lines(result) == ["outlier suspect n8/re6: worse than its peers with 3 partners (n1/re6, n2/re6, n3/re6) in PERF-002, PERF-003"]


def test_outliers_of_a_failing_suspect_are_explained_by_its_failures() -> None:
    result = localize([outcome("n1/re5", "n9/re5", True), outcome("n2/re5", "n9/re5", True), outlier("n3/re5", "n9/re5"),
                       outlier("n4/re2", "n5/re2")])

    assert [end.end for end in result.suspect_ends] == ["n9/re5"] and result.outlier_ends == ()
    assert [(link.a, link.b) for link in result.outlier_links] == [("n4/re2", "n5/re2")]


def test_long_partner_lists_are_counted() -> None:
    partners = tuple(f"n{i:03d}/re5" for i in range(1, 256))
    lines = summary_lines(localize([outcome(p, "n256/re5", True) for p in partners]))

    assert lines == ["suspect n256/re5: fails with 255 partners (n001/re5, n002/re5, n003/re5, n004/re5, n005/re5, "
                     "n006/re5, n007/re5, n008/re5 and 247 more) in PERF-002"]
