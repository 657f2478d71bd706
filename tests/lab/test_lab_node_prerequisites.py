"""`gpufabric preflight` over real SSH against the 4-node namespace lab: with a program hidden on two nodes it prints
one line naming the program, the two nodes folded and the checks it costs, and exits 1; with nothing missing it
exits 0; `pytest --preflight` prints the same summary before the tests."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gpufabric.cli import main
from pytest_gpufabric.lab import Faults, Lab
from tests.lab.suite_run import REPO

pytestmark = pytest.mark.lab

SUMMARY = re.compile(r"^preflight: (\d+) node\(s\) probed in ([0-9.]+) s \((\d+) at once\): (.+)$")


@pytest.fixture(scope="module")
def site(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lab.write_inventory(tmp_path_factory.mktemp("preflight") / "site.yaml")


def _preflight(site: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str]]:
    code = main(["preflight", f"--cluster={site}", f"--thresholds-dir={REPO / 'thresholds'}", *extra])
    return code, capsys.readouterr().out.splitlines()


def test_nothing_missing_exits_0(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _preflight(site, capsys)
    assert code == 0, lines
    summary = SUMMARY.match(lines[-1])
    assert summary is not None and summary.group(1) == "4" and summary.group(4) == "nothing missing"
    assert len(lines) == 1


def test_a_program_missing_on_two_nodes_is_one_line(site: Path, faults: Faults, capsys: pytest.CaptureFixture[str]) -> None:
    faults.missing_program("node02", "ethtool")
    faults.missing_program("node03", "ethtool")
    code, lines = _preflight(site, capsys)
    assert code == 1
    assert lines[0] == "ethtool: node[02-03]: LNK-002"  # the lab-linux profile judges LNK-002 with ethtool
    assert lines[1:3] == ["", "how to provide them:"] and lines[3] == "  ethtool: Debian/Ubuntu: ethtool; RHEL: ethtool"
    assert SUMMARY.match(lines[-1]) is not None and lines[-1].endswith(": 1 missing prerequisite(s)")
    code, lines = _preflight(site, capsys, "-k", "ping or mesh")  # the checks -k leaves out cost nothing
    assert code == 0, lines


def test_an_unreachable_node_costs_every_selected_check(site: Path, faults: Faults, capsys: pytest.CaptureFixture[str]) -> None:
    faults.stop_sshd("node04")
    code, lines = _preflight(site, capsys)
    assert code == 1
    assert re.match(r"^unreachable: .+: node04: every selected check \(\d+\)$", lines[0]), lines


def test_pytest_preflight_prints_the_summary_before_the_tests(site: Path, faults: Faults) -> None:
    faults.missing_program("node01", "ping")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={site}", "--preflight", "--collect-only", "-q",
         "-p", "no:cacheprovider", f"--thresholds-dir={REPO / 'thresholds'}"],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert "gpufabric preflight" in out and "ping (iputils): node01: NET-001, NET-002" in out
    assert out.index("ping (iputils): node01") < out.index("tests collected")
