"""Run-to-run comparison on two replays of the demo that differ by one injected regression: one NIC pair's
recorded ib_write_bw output at 85 % (774.99 -> 658.74 Gb/s, still above the 380 Gb/s threshold). ``gpufabric
compare`` lists exactly that regression, and so do the terminal and the acceptance report of the second run
with ``--compare-with`` the first."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pytest
from acceptance_dom import parse_dom
from demo_run import COMPLETED_WITH_FAILURES, DEMO, DemoRun, replay
from regressions import inject_regression

from pytest_gpufabric.cli import EXIT_FAIL, EXIT_OK, main

# PERF-002 between node02 and node05 on rail 3: the client on node02 (192.168.4.2) towards node05's server, one
# section of the command that runs the node pair's eight clients at once.
REGRESSED_COMMAND = "ib_write_bw -x 3 -a -b -F --report_gbits -q 4 -d bnxt_re3 -p 18519 --bind_source_ip=192.168.4.2 192.168.4.5 "
REGRESSED_ITEM = "suites/acceptance/test_perftest.py::test_nic_switch_nic_bandwidth[node02->node05]"
REGRESSED_PAIR = "node02/bnxt_re3->node05/bnxt_re3"
FACTOR = 0.85


@pytest.fixture(scope="module")
def regressed_run(demo_run: DemoRun, tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    workdir = tmp_path_factory.mktemp("regressed")
    recording = workdir / "recording"
    inject_regression(DEMO, recording, "node02", REGRESSED_COMMAND, f"client {REGRESSED_PAIR}", FACTOR)
    finished = replay(recording, workdir, f"--compare-with={demo_run.results_file}", f"--gpufabric-report={workdir / 'report'}")
    assert finished.exit_code == COMPLETED_WITH_FAILURES, finished.output[-3000:]
    return finished


def test_gpufabric_compare_lists_exactly_the_injected_regression(demo_run: DemoRun, regressed_run: DemoRun, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "comparison.csv"
    code = main(["compare", str(demo_run.results_file), str(regressed_run.results_file.parent), "--csv", str(table),
                 "--compare-fail"])
    printed = capsys.readouterr().out
    with table.open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))

    assert code == EXIT_FAIL  # --compare-fail: something regressed
    assert [(row["category"], row["node_id"], row["pair"], row["metric"]) for row in rows] == [
        ("regressions", REGRESSED_ITEM, REGRESSED_PAIR, "average_bw_gbps")]
    assert (float(rows[0]["old"]), float(rows[0]["new"])) == (774.99, 658.74)
    assert float(rows[0]["change"]) == pytest.approx(FACTOR - 1, abs=1e-4) and float(rows[0]["tolerance"]) == 0.05
    assert "0 new failures, 1 regressions, 0 fixed failures, 0 improvements, 0 appeared, 0 vanished, 0 changed" in printed
    assert f"PERF-002 node02->node05 {REGRESSED_PAIR}: average_bw_gbps 774.99 -> 658.74 Gb/s (-15.0%)" in printed


def test_a_run_compared_with_itself_shows_no_difference(demo_run: DemoRun, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(demo_run.results_file), str(demo_run.results_file), "--compare-fail"]) == EXIT_OK
    assert "0 new failures, 0 regressions, 0 fixed failures, 0 improvements, 0 appeared, 0 vanished, 0 changed" in capsys.readouterr().out


def test_the_run_with_compare_with_shows_the_regression_in_terminal_and_report(
        regressed_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    dom = parse_dom(rendered_dom(regressed_run.workdir / "report" / "report.html"))
    listed = [(row.attrs["data-category"], row.attrs["data-node-id"], row.attrs.get("data-pair"))
              for row in dom.by_id("comparison").find_all("tr") if "data-category" in row.attrs]

    assert "regressions (1):" in regressed_run.output and "gpufabric compare with" in regressed_run.output
    assert listed == [("regressions", REGRESSED_ITEM, REGRESSED_PAIR)]


def test_the_regressed_pair_passes_its_threshold_and_is_an_outlier(regressed_run: DemoRun) -> None:
    record = next(r for r in regressed_run.records() if r["node_id"] == REGRESSED_ITEM)
    entry = next(e for e in record["pairs"] if e["pair"] == REGRESSED_PAIR)

    assert entry["outcome"] == "passed" and entry["measured"] == 658.74
    assert f"outlier link {REGRESSED_PAIR.replace('->', ' <-> ')}" in regressed_run.output
