"""The switch checks replayed on the bundled demo: every SW and NSW id passes somewhere and fails somewhere (with
measured, expected, source and hint), SW-007 judges counters around the traffic tests, and no recorded switch
command is a configuration command."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from demo_replay import replay_records

from pytest_gpufabric.switches.readonly import is_read_only

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
SUITES = ["suites/acceptance/test_switches.py", "suites/acceptance/test_connectivity.py"]  # NET-*: the traffic of SW-007


def switch_check_ids() -> set[str]:
    catalog = yaml.safe_load((REPO / "pytest_gpufabric" / "catalog.yaml").read_text(encoding="utf-8"))
    return {c["id"] for c in catalog["checks"] if c["id"].startswith(("SW-", "NSW-"))}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return replay_records(SUITES, tmp_path_factory.mktemp("switches"), workers=2)


def test_every_switch_check_passes_and_fails_somewhere(records: list[dict[str, Any]]) -> None:
    outcomes = Counter((r["check_id"], r["outcome"]) for r in records)
    assert len(switch_check_ids()) == 11
    for check in sorted(switch_check_ids()):
        assert outcomes[(check, "passed")] >= 1, f"{check}: no passed item"
        assert outcomes[(check, "failed")] >= 1, f"{check}: no failed item"


def test_no_switch_item_errors_or_skips(records: list[dict[str, Any]]) -> None:
    switch_items = [r for r in records if r["check_id"] in switch_check_ids()]
    assert len(switch_items) == 11 * 32  # every switch check per cabled port: 32 ports on 4 leaves
    not_judged = [(r["check_id"], r["node_id"].split("[")[-1].rstrip("]"), r["outcome"]) for r in switch_items if r["outcome"] not in ("passed", "failed")]
    assert not_judged == []


def test_the_junos_leaf_passes_and_fails_every_switch_check(records: list[dict[str, Any]]) -> None:
    on_leaf4 = Counter((r["check_id"], r["outcome"]) for r in records
                       if r["check_id"] in switch_check_ids() and "leaf4/" in r["node_id"])
    for check in sorted(switch_check_ids()):
        assert on_leaf4[(check, "passed")] >= 1 and on_leaf4[(check, "failed")] >= 1, (check, on_leaf4)
    assert sum(on_leaf4.values()) == 11 * 4  # node01..node04 rail 7


def test_every_switch_failure_carries_measured_expected_source_and_hint(records: list[dict[str, Any]]) -> None:
    failed = [r for r in records if r["outcome"] == "failed" and r["check_id"] in switch_check_ids()]
    assert failed
    for record in failed:
        assert record["measured"] is not None and record["expected"] and record["source"] and record["hint"], record["node_id"]
        assert record["commands"], "the raw evidence is listed"


def test_a_mismatch_names_both_sides_and_both_sources(records: list[dict[str, Any]]) -> None:
    for record in (r for r in records if r["outcome"] == "failed" and r["check_id"].startswith("NSW-")):
        text = json.dumps(record)
        assert "NIC node0" in text and "switch leaf" in text, record["node_id"]
        assert ("bnxt_re.conf" in text or "ip link" in text or "cc_mode" in text) and "`" in text, record["node_id"]


def recorded_switch_commands() -> dict[str, list[str]]:
    site = yaml.safe_load((DEMO / "site.yaml").read_text(encoding="utf-8"))
    commands = {}
    for switch in site["switches"]:
        data = yaml.safe_load((DEMO / "nodes" / f"{switch['name']}.yaml").read_text(encoding="utf-8"))
        commands[switch["os"] + ":" + switch["name"]] = [entry["command"] for entry in data["commands"]]
    return commands


def test_no_recorded_switch_command_is_a_configuration_command() -> None:
    commands = recorded_switch_commands()
    assert len(commands) == 4 and all(commands.values())
    offending = {name: [c for c in cmds if not is_read_only(name.split(":")[0], c)] for name, cmds in commands.items()}
    assert offending == {name: [] for name in commands}
