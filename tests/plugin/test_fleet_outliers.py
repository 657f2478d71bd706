"""Outliers in a run: six nodes whose memory check passes everywhere, one node at 85 % of its peers. The terminal
warns (or fails the run where the profile says ``verdict: fail``), and results.jsonl ends with the run summary
(fleet statistics, outliers, the rule)."""

from __future__ import annotations

import copy
import json

import pytest
from sitekit import BASE_SITE, Site

NODES = [f"node0{n}" for n in range(1, 7)]
MEMORY_GIB = {node: (1700 if node == "node04" else 2000) for node in NODES}  # node04: 85 %, above the 1,024 floor
CHECK = '''

@pytest.mark.check("HOST-005")
def test_memory(node, gpufabric):
    gpufabric.expect("memory_gib", gpufabric.parse(parse_proc_sys_int, gpufabric.run(node.id, "cat /run/memory_gib")))
'''


def rule(verdict: str) -> str:
    return f"outliers: {{verdict: {verdict}, k: 3.5, min_gap: 0.05, min_peers: 5, source: 'test rule'}}\n"


@pytest.fixture
def memory_site(site: Site) -> Site:
    """Six nodes without NICs, a memory check reading a recorded number of GiB."""
    node = copy.deepcopy(BASE_SITE["nodes"][0])
    site.data["nodes"] = [{**node, "name": name, "address": f"10.0.0.{i}", "nics": []} for i, name in enumerate(NODES, 1)]
    site.pytester.makepyfile(test_checks=site.pytester.path.joinpath("test_checks.py").read_text() + CHECK)
    return site


def record_memory(site: Site, memory_gib: dict[str, int]) -> None:
    site.record({name: {"cat /run/memory_gib": f"{memory_gib[name]}\n"} for name in NODES})


def with_profile(site: Site, verdict: str) -> None:
    profile = site.pytester.path / "thresholds" / "p.yaml"
    text = profile.read_text().replace("expectations:\n", f"{rule(verdict)}expectations:\n", 1)
    text += '  HOST-005:\n    memory_gib: {op: ">=", value: 1024, unit: GiB, source: "S0 2.3.3"}\n'
    profile.write_text(text)


def run_summary(site: Site) -> dict:
    last = (site.pytester.path / "results" / "results.jsonl").read_text().splitlines()[-1]
    return json.loads(last)


def test_an_outlier_warns_and_passes_by_default(memory_site: Site) -> None:
    with_profile(memory_site, "warn")
    record_memory(memory_site, MEMORY_GIB)
    result = memory_site.run(f"--replay={memory_site.recording}", "-k", "memory")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["*gpufabric fleet outliers*", "1 values pass their thresholds but are worse than their peers (1 warn)*",
                                 "WARNING HOST-005 memory_gib rail -: node04 1700 GiB vs median 2000 GiB of 6 peers (p): 15% worse*"])
    assert all(record["outcome"] == "passed" and record["measurements"] for record in memory_site.results())  # kept whole
    assert "outliers (the profile fails outliers)" not in result.stdout.str()  # a warning: no reason against the verdict
    summary = run_summary(memory_site)
    assert summary["kind"] == "run_summary" and summary["outlier_rules"]["p"]["k"] == 3.5
    (stats,) = [row for row in summary["fleet_statistics"] if row["check_id"] == "HOST-005"]
    assert (stats["count"], stats["min"], stats["median"], stats["max"], stats["mad"]) == (6, 1700, 2000, 2000, 0)
    assert [(row["item"], row["value"], row["verdict"]) for row in summary["outliers"]] == [("node04", 1700, "warn")]


def test_an_outlier_fails_the_run_where_the_profile_says_so(memory_site: Site) -> None:
    with_profile(memory_site, "fail")
    record_memory(memory_site, MEMORY_GIB)
    result = memory_site.run(f"--replay={memory_site.recording}", "-k", "memory")

    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED HOST-005 memory_gib rail -: node04 1700 GiB*",
                                 "FAILED: 1 outliers, and the profile fails outliers (outliers: verdict fail)"])
    result.stdout.fnmatch_lines(["verdict: not accepted: *1 outliers (the profile fails outliers)*"])  # as the report's
    assert all(record["outcome"] == "passed" for record in memory_site.results())  # each item passed its threshold


def test_no_outlier_without_one(memory_site: Site) -> None:
    with_profile(memory_site, "fail")
    record_memory(memory_site, dict.fromkeys(NODES, 2000))
    result = memory_site.run(f"--replay={memory_site.recording}", "-k", "memory")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["*gpufabric fleet outliers*", "no outliers"])
    assert run_summary(memory_site)["outliers"] == []
