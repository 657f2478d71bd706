"""The gpufabric command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.cli import main

REPO = Path(__file__).resolve().parents[3]


def test_checks_json_lists_implemented_checks_with_sources(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks", "--json"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    for check_id in ("HOST-001", "HOST-002", "PCI-001", "LNK-005"):
        assert rows[check_id]["source"] == load_catalog().get(check_id).source
        assert rows[check_id]["tests"]
    assert all(row["source"] for row in rows.values())


def test_checks_refuses_a_suite_tagged_with_unknown_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test_x.py").write_text('import pytest\n@pytest.mark.check("XYZ-999")\ndef test_x(node, gpufabric): ...\n')
    assert main(["checks", "--suite", str(tmp_path)]) == 1
    assert "XYZ-999" in capsys.readouterr().err


def test_inventory_validate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["inventory", "validate", str(REPO / "recordings/demo/site.yaml"), "--thresholds-dir", str(REPO / "thresholds")]) == 0
    broken = tmp_path / "site.yaml"
    broken.write_text("version: 1\nsite: x\nprofile: nope\nnodes: []\n")
    assert main(["inventory", "validate", str(broken), "--thresholds-dir", str(REPO / "thresholds")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith(str(broken)) for line in err)
    assert any("nope" in line for line in err)


def test_parse_list_names_every_parser(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", "--list"]) == 0
    tools = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    assert {"lspci-vvv", "proc-cmdline", "ip-link", "sysfs-pci-path"} <= tools


def test_parse_prints_facts_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    raw = REPO / "fixtures/outputs/proc-cmdline/s0_amd_iommu_pt.txt"
    assert main(["parse", "proc-cmdline", str(raw)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["tool"], printed["unread"]) == ("proc-cmdline", [])
    assert (printed["facts"]["iommu"], printed["facts"]["amd_iommu"]) == ("pt", "on")


@pytest.mark.parametrize(
    ("argv", "code", "phrase"),
    [
        (["parse", "no-such-tool", "x"], 2, "unknown tool 'no-such-tool'"),
        (["parse", "proc-cmdline", "/nonexistent/file"], 2, "cannot read /nonexistent/file"),
        (["parse", "proc-cmdline"], 2, "give TOOL and FILE"),
    ],
    ids=["unknown-tool", "missing-file", "no-file"],
)
def test_parse_errors_are_one_line(argv: list[str], code: int, phrase: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == code
    err = capsys.readouterr().err
    assert phrase in err and err.count("\n") == 1


def test_parse_error_of_the_output_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert main(["parse", "proc-cmdline", str(empty)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gpufabric: cannot parse proc-cmdline output") and err.count("\n") == 1


def test_checks_show_the_switch_checks_for_every_switch_os(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks"]) == 0
    out = capsys.readouterr().out
    switch_ids = [f"SW-00{n}" for n in range(1, 8)] + [f"NSW-00{n}" for n in range(1, 5)]
    for check_id in switch_ids:
        block = out[out.index(f"{check_id} "):].split("\n", 2)[1]
        assert "applies to: arista, sonic, juniper;" in block, (check_id, block)
