"""The report's table model: both kinds of pair records, worst values, verdicts, versions, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pytest_gpufabric.cli import main
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.reporting.acceptance.collectives import CURVE_COLUMNS
from pytest_gpufabric.reporting.acceptance.load import load_run
from pytest_gpufabric.reporting.acceptance.model import build_model, nodes_of
from pytest_gpufabric.reporting.acceptance.pairs import parse_nic_pair
from pytest_gpufabric.expectations import load_profile
from pytest_gpufabric.reporting.acceptance.run_plugin import profile_info
from pytest_gpufabric.reporting.acceptance.runinfo import RunInfo, read_run_info, write_run_info
from pytest_gpufabric.reporting.acceptance.summary_sections import verdict_line
from pytest_gpufabric.reporting.acceptance.versions import version_table
from pytest_gpufabric.results import outcome_counts_line


def bw(where: str, value: Any, unit: str = "Gb/s", name: str = "average_bw_gbps") -> dict[str, Any]:
    passed = value >= 380 if unit == "Gb/s" else value == 0
    return {"check": "PERF-002", "name": name, "where": where, "measured": value, "expected": ">= 380 Gb/s", "op": ">=",
            "threshold": 380, "unit": unit, "source": "S4", "passed": passed, "detail": ""}


def record(item: str, outcome: str, measurements: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"node_id": f"t.py::test[{item}]", "check_id": "PERF-002", "title": "t", "item": item, "outcome": outcome,
            "measurements": measurements, "commands": [], **extra}


def test_per_nic_pair_record_gives_the_worst_direction_and_the_items_verdict() -> None:
    old = record("node01/bnxt_re2->node03/bnxt_re2", "failed",
                 [bw("node03/bnxt_re2->node01/bnxt_re2", 774.9), bw("node01/bnxt_re2->node03/bnxt_re2", 232.5)])
    errors_only = record("node02/bnxt_re6->node04/bnxt_re6", "failed",
                         [bw("node04/bnxt_re6->node02/bnxt_re6", 774.9), bw("node02/bnxt_re6->node04/bnxt_re6", 1, "errors", "completion_errors")])

    pairs = build_model([old, errors_only], RunInfo(rails={"node01/bnxt_re2": 2})).pairs

    rows = {(r.node_a, r.node_b): r for r in pairs.itertuples()}
    assert (rows["node01", "node03"].value, rows["node01", "node03"].passed, rows["node01", "node03"].rail) == (232.5, False, 2)
    assert (rows["node02", "node04"].value, rows["node02", "node04"].passed, rows["node02", "node04"].rail) == (774.9, False, "bnxt_re6")


def test_node_pair_record_gives_one_row_per_rail_entry() -> None:
    entries = [
        {"pair": f"node01/bnxt_re{r}->node02/bnxt_re{r}", "rail": r, "node_a": "node01", "nic_a": f"bnxt_re{r}",
         "node_b": "node02", "nic_b": f"bnxt_re{r}", "outcome": "failed" if r == 1 else "passed",
         "measured": 100.0 if r == 1 else 390.0, "expected": ">= 380 Gb/s", "unit": "Gb/s", "source": "S4",
         "measurements": [bw(f"node01/bnxt_re{r}->node02/bnxt_re{r}", 100.0 if r == 1 else 390.0)]}
        for r in range(2)
    ] + [{"pair": "node01/bnxt_re7->node02/bnxt_re7", "rail": 7, "node_a": "node01", "nic_a": "bnxt_re7", "node_b": "node02",
          "nic_b": "bnxt_re7", "outcome": "error", "measured": None, "unit": None, "measurements": []}]
    new = record("node01->node02", "failed", [], scope="node_pair", pairs=entries)

    pairs = build_model([new], RunInfo()).pairs

    assert sorted(zip(pairs["rail"], pairs["value"], pairs["passed"])) == [(0, 390.0, True), (1, 100.0, False)]


@pytest.mark.parametrize(("text", "ends"), [
    ("node01/bnxt_re2->node03/bnxt_re2", ("node01/bnxt_re2", "node03/bnxt_re2")),
    ("node02/bnxt_re0->node01/bnxt_re0 (192.168.1.2 -> 192.168.1.1)", ("node02/bnxt_re0", "node01/bnxt_re0")),
    ("node01/bnxt_re0~gpu0 loopback", None),
    ("node01->node02 (osu_latency D D)", None),
])
def test_nic_pair_ids(text: str, ends: tuple[str, str] | None) -> None:
    assert parse_nic_pair(text) == ends


def test_nodes_of_item_ids() -> None:
    assert nodes_of("node01/bnxt_re0~gpu0") == ("node01",)
    assert nodes_of("node01/bnxt_re0->node02/bnxt_re0") == ("node01", "node02")
    assert nodes_of("cluster-amd") == ("cluster-amd",)


def test_versions_flag_the_odd_one_and_the_judged_wrong() -> None:
    def version(node: str, value: str, passed: bool = True) -> dict[str, Any]:
        return {"node_id": node, "check_id": "DRV-008", "item": node, "outcome": "passed",
                "measurements": [{"name": "rocm_core", "measured": value, "passed": passed, "where": node}]}

    records = [version("n1", "6.3.1"), version("n2", "6.3.1"), version("n3", "6.2.4"), version("n4", "6.3.1", passed=False)]

    table, odd = version_table(records, pd.DataFrame(columns=list(CURVE_COLUMNS)))

    assert table["ROCm (rocm-core)"].to_dict() == {"n1": "6.3.1", "n2": "6.3.1", "n3": "6.2.4", "n4": "6.3.1"}
    assert odd["ROCm (rocm-core)"].to_dict() == {"n1": False, "n2": False, "n3": True, "n4": True}


def test_unmeasured_is_never_accepted() -> None:
    model = build_model([record("node01", "passed", []), record("node02", "error", [])], RunInfo())

    assert not model.accepted
    assert model.counts == {"passed": 1, "failed": 0, "error": 1, "skipped": 0}
    assert outcome_counts_line(model.records) == "0 failed, 1 not measured, 1 passed, 0 skipped"


@pytest.mark.parametrize(("content", "phrase"), [
    ("{not json\n", "results.jsonl:1: not a JSON line"),
    ('{"a": 1}\n', "results.jsonl:1: not a results record"),
])
def test_bad_results_file_is_a_one_line_error(tmp_path: Path, content: str, phrase: str) -> None:
    (tmp_path / "results.jsonl").write_text(content)

    with pytest.raises(UsageError, match=phrase):
        load_run(tmp_path)


def test_missing_results_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no results file at"):
        load_run(tmp_path / "nowhere")


def test_report_command_names_a_missing_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nowhere"), "-o", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err.strip().startswith("gpufabric: no results at")


# -- the verdict's scope: the checks the profile requires ------------------------------------------------------

THRESHOLDS = Path(__file__).resolve().parents[3] / "thresholds"
FINISHED = {"started": "2026-11-23 10:00:00 UTC", "finished": "2026-11-23 10:05:00 UTC"}


def hgx_run(**extra: Any) -> RunInfo:
    """Run information of a bare-metal HGX site: its profile holds no switch expectations and declares the
    VMware checks not applicable, so SW-001 and VM-001 are outside the checks it requires."""
    return RunInfo(profiles=(profile_info(load_profile(THRESHOLDS, "hgx-h100-thor2")),), **{**FINISHED, **extra})


def item(check_id: str, outcome: str) -> dict[str, Any]:
    return {"node_id": f"t.py::test_{check_id}[node01]", "check_id": check_id, "title": "t", "item": "node01",
            "outcome": outcome, "measurements": [], "commands": []}


def test_the_profile_requires_the_checks_it_has_expectations_for() -> None:
    required = hgx_run().required_checks

    assert required is not None and {"DRV-001", "PERF-002", "COLL-001"} <= required
    assert not {"SW-001", "VM-001", "DRV-008"} & required  # no expectations; not applicable; not applicable


def test_a_failure_outside_the_profiles_checks_does_not_block_acceptance() -> None:
    model = build_model([item("DRV-001", "passed"), item("SW-001", "failed"), item("VM-001", "error")], hgx_run())

    assert model.accepted
    assert verdict_line(model) == "accepted; outside the profile's checks: 1 failed, 1 not measured"
    assert model.counts == {"passed": 1, "failed": 1, "error": 1, "skipped": 0}  # still shown in full


def test_an_unmeasured_item_inside_the_profiles_checks_blocks_acceptance() -> None:
    model = build_model([item("DRV-001", "passed"), item("PERF-002", "error"), item("SW-001", "failed")], hgx_run())

    assert not model.accepted
    assert verdict_line(model) == "not accepted: 0 failed, 1 not measured; outside the profile's checks: 1 failed, 0 not measured"


def test_nothing_measured_in_the_profiles_checks_is_not_accepted() -> None:
    model = build_model([item("DRV-001", "skipped"), item("SW-001", "passed")], hgx_run())

    assert not model.accepted
    assert verdict_line(model) == "not accepted: nothing of the profile's checks was measured"


@pytest.mark.parametrize(("extra", "phrase"), [
    ({"interrupted": True}, "the run was interrupted (1 items recorded: 0 failed, 0 not measured)"),
    ({"finished": ""}, "the run did not finish (1 items recorded: 0 failed, 0 not measured)"),
])
def test_an_incomplete_run_is_never_accepted(extra: dict[str, Any], phrase: str) -> None:
    model = build_model([item("DRV-001", "passed")], hgx_run(**extra))

    assert not model.accepted
    assert verdict_line(model) == f"not accepted: {phrase}"


def test_the_scope_survives_run_json(tmp_path: Path) -> None:
    write_run_info(tmp_path, hgx_run(interrupted=True))

    info = read_run_info(tmp_path)

    assert info is not None and info.required_checks == hgx_run().required_checks and info.interrupted


def test_a_cut_off_last_line_is_left_out_and_noted(tmp_path: Path) -> None:
    lines = [json.dumps(item("DRV-001", "passed")), json.dumps(item("DRV-002", "failed"))]
    (tmp_path / "results.jsonl").write_text(lines[0] + "\n" + lines[1][:40])

    run = load_run(tmp_path)

    assert [r["check_id"] for r in run.records] == ["DRV-001"] and run.cut_off_last_line
    (tmp_path / "results.jsonl").write_text(lines[1][:40] + "\n" + lines[0] + "\n")
    with pytest.raises(UsageError, match="results.jsonl:1: not a JSON line"):
        load_run(tmp_path)
