"""Retests merge into one acceptance, and deviations are approved, not hidden: a demo run without its pair
sweep, a retest of the sweep, and a deviations file for the demo's injected faults (and the waived soak) read
"accepted with N approved deviations" over the merged runs; without the deviations the same runs are not
accepted. Real replays, real files, the real ``gpufabric report``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from acceptance_dom import Element, parse_dom
from demo_runs import SuiteRun, replay

from pytest_gpufabric.cli import main
from pytest_gpufabric.signoff.acceptance import load_acceptance

SWEEP_FILE = "suites/acceptance/test_perftest.py"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[SuiteRun, SuiteRun, Path]:
    work = tmp_path_factory.mktemp("retest")
    first = replay(work / "results", "-n", "2", "--deselect", SWEEP_FILE)
    first_dir = first.run_dir
    retest = replay(work / "results", "--retest-of", first_dir.name, f"--gpufabric-report={work / 'retest-report'}",
                    paths=(SWEEP_FILE,))
    return first, retest, work


def _deviations_for(run_dirs: list[Path], path: Path) -> int:
    """A deviations file approving every open finding of the merged runs: one entry per failed or unmeasured
    item (its NIC pair for pair checks), one check-wide waiver for the soak (never run)."""
    verdict = load_acceptance(run_dirs).verdict
    assert verdict is not None
    today = dt.date.today()
    entries, seen = [], set()
    for finding in verdict.open_findings:
        key = (finding.check_id, None if finding.check_id == "PERF-008" else finding.item)
        if key in seen:
            continue
        seen.add(key)
        entry = {"check": key[0], "reason": f"demo fault accepted for the test: {finding.why[:80]}",
                 "approved_by": "J. Doe, customer QA", "date": today.isoformat(),
                 "expires": (today + dt.timedelta(days=30)).isoformat()}
        if key[1] is not None:
            entry["where"] = key[1]
        entries.append(entry)
    path.write_text(yaml.safe_dump({"deviations": entries}, sort_keys=False), encoding="utf-8")
    return len(entries)


def _dom(out: Path) -> Element:
    return parse_dom((out / "report.html").read_text(encoding="utf-8"))


def test_the_first_run_alone_is_partial(runs: tuple[SuiteRun, SuiteRun, Path]) -> None:
    first, _, _ = runs

    assert "partial run" in first.verdict_line()
    assert not any(r["check_id"] == "PERF-002" for r in first.records())


def test_the_retest_names_its_run_and_merges_at_its_end(runs: tuple[SuiteRun, SuiteRun, Path]) -> None:
    first, retest, work = runs

    assert retest.run_dir != first.run_dir
    assert retest.verdict_line().startswith("verdict (merged with 1 earlier runs): not accepted")
    assert "partial run" not in retest.verdict_line()  # the sweep was the part missing
    dom = _dom(work / "retest-report")
    assert dom.by_id("cover-run-ids").text == f"{first.run_dir.name}, {retest.run_dir.name}"
    retests = dom.by_id("retests").find_all("div", data_run=retest.run_dir.name)
    assert len(retests) == 1 and "not run -> failed" in retests[0].text and "not run -> passed" in retests[0].text


def test_deviations_for_the_faults_make_the_merged_runs_accepted(runs: tuple[SuiteRun, SuiteRun, Path]) -> None:
    first, retest, work = runs
    approved = _deviations_for([first.run_dir, retest.run_dir], work / "deviations.yaml")

    out = work / "signed"
    assert main(["report", str(retest.run_dir), "--deviations", str(work / "deviations.yaml"), "-o", str(out),
                 "--no-pdf"]) == 0

    dom = _dom(out)
    assert dom.by_id("verdict").text == f"accepted with {approved} approved deviations"
    rows = [r for r in dom.by_id("deviation-table").find_all("tr") if "data-check" in r.attrs]
    assert len(rows) == approved and all(r.attrs["class"] == "used" for r in rows)
    assert all(r.find_all("td")[1].text == "accepted" for r in dom.by_id("node-verdicts").find_all("tr")[1:])
    failed = [r for r in dom.by_id("failures").find_all("tr") if r.attrs.get("data-outcome") == "failed"]
    assert failed and all(r.attrs.get("data-deviation", "").startswith("deviation: ") for r in failed)  # never passed
    assert int(dom.by_id("total-failed").text) > 0  # still counted as failed


def test_the_same_merge_from_explicit_runs(runs: tuple[SuiteRun, SuiteRun, Path]) -> None:
    first, retest, work = runs
    _deviations_for([first.run_dir, retest.run_dir], work / "deviations-2.yaml")
    out = work / "explicit"

    assert main(["report", str(first.run_dir), str(retest.run_dir), "--deviations", str(work / "deviations-2.yaml"),
                 "-o", str(out), "--no-pdf"]) == 0
    assert _dom(out).by_id("verdict").text.startswith("accepted with ")
    assert main(["report", str(first.run_dir), "-o", str(work / "alone"), "--no-pdf"]) == 0
    assert "partial run" in _dom(work / "alone").by_id("verdict").text
