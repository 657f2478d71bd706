"""A small real pytest session (passing, failing, skipped, xfailed tests) that writes both report kinds."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SAMPLE_MODULE = "test_sample_fabric.py"
SESSION_TIMEOUT_S = 180

# Ids shaped like the plugin's (inventory names with "/", "->" and "~"): they must survive HTML escaping.
SAMPLE_SOURCE = """
import pytest

PAIRS = ["node01/bnxt_re0->node02/bnxt_re0", "node01/bnxt_re1->node02/bnxt_re1"]


def test_link_up():
    assert "up" == "up"


@pytest.mark.parametrize("pair", PAIRS, ids=PAIRS)
def test_pair_bandwidth(pair):
    assert not pair.startswith("node01/bnxt_re1"), f"{pair}: measured bandwidth below the expectation"


@pytest.mark.parametrize("target", ["node01/bnxt_re0~gpu0"], ids=["node01/bnxt_re0~gpu0"])
@pytest.mark.skip(reason="switch credentials missing from the inventory")
def test_switch_port_pfc(target):
    pass


@pytest.mark.xfail(reason="known firmware issue", strict=True)
def test_known_firmware_issue():
    assert "2.31" == "2.32"
"""

# pytest node id -> pytest-html outcome class; Allure test name -> Allure status (xfail is "skipped").
EXPECTED_HTML_OUTCOMES: dict[str, str] = {
    f"{SAMPLE_MODULE}::test_link_up": "passed",
    f"{SAMPLE_MODULE}::test_pair_bandwidth[node01/bnxt_re0->node02/bnxt_re0]": "passed",
    f"{SAMPLE_MODULE}::test_pair_bandwidth[node01/bnxt_re1->node02/bnxt_re1]": "failed",
    f"{SAMPLE_MODULE}::test_switch_port_pfc[node01/bnxt_re0~gpu0]": "skipped",
    f"{SAMPLE_MODULE}::test_known_firmware_issue": "xfailed",
}
EXPECTED_ALLURE_STATUSES: dict[str, str] = {
    "test_link_up": "passed",
    "test_pair_bandwidth[node01/bnxt_re0->node02/bnxt_re0]": "passed",
    "test_pair_bandwidth[node01/bnxt_re1->node02/bnxt_re1]": "failed",
    "test_switch_port_pfc[node01/bnxt_re0~gpu0]": "skipped",
    "test_known_firmware_issue": "skipped",
}
EXPECTED_EXIT_CODE = 1  # one test fails
NO_TESTS_EXIT_CODE = 5  # pytest.ExitCode.NO_TESTS_COLLECTED


@dataclass(frozen=True)
class SampleSession:
    """A finished sample run and the reports it wrote."""

    workers: int
    workdir: Path
    html_report: Path
    allure_results: Path
    exit_code: int
    output: str


def _child_environment() -> dict[str, str]:
    """This environment without pytest's and xdist's own variables (the sample is a session of its own)."""
    return {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}


def run_sample_session(workdir: Path, workers: int, keyword: str | None = None) -> SampleSession:
    """Run the sample tests in ``workdir`` with ``-n workers`` (0: no xdist), writing HTML and Allure results.

    ``keyword`` selects tests like ``-k``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / SAMPLE_MODULE).write_text(SAMPLE_SOURCE, encoding="utf-8")
    html_report = workdir / "report.html"
    allure_results = workdir / "allure-results"
    argv = [
        sys.executable,
        "-m",
        "pytest",
        SAMPLE_MODULE,
        "-n",
        str(workers),
        "-p",
        "no:cacheprovider",
        f"--html={html_report}",
        "--self-contained-html",
        f"--alluredir={allure_results}",
        "-rA",
    ]
    if keyword is not None:
        argv += ["-k", keyword]
    completed = subprocess.run(
        argv,
        cwd=workdir,
        env=_child_environment(),
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT_S,
        check=False,
    )
    return SampleSession(
        workers=workers,
        workdir=workdir,
        html_report=html_report,
        allure_results=allure_results,
        exit_code=completed.returncode,
        output=completed.stdout + completed.stderr,
    )
