"""``gpufabric inventory validate FILE`` and ``pytest --cluster=FILE`` run the same start-up checks: the
validator's lines are the lines pytest refuses the run with (exit 4), and the validator says valid (exit 0)
exactly when the run starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gpufabric.cli import main

REPO = Path(__file__).resolve().parents[2]
MINIMAL = REPO / "fixtures" / "inventories" / "minimal-site.yaml"
THRESHOLDS = REPO / "thresholds"
PYTEST_USAGE_ERROR = 4


def _site(tmp_path: Path, replace: tuple[str, str] | None = None, append: str = "") -> Path:
    text = MINIMAL.read_text()
    if replace is not None:
        assert replace[0] in text
        text = text.replace(replace[0], replace[1], 1)
    site = tmp_path / "site.yaml"
    site.write_text(text + append)
    return site


def _validate(site: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, list[str]]:
    status = main(["inventory", "validate", str(site), "--thresholds-dir", str(THRESHOLDS), *options])
    captured = capsys.readouterr()
    return status, captured.err.splitlines() or captured.out.splitlines()


def _pytest(site: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(REPO / "suites" / "acceptance"), f"--cluster={site}",
         f"--thresholds-dir={THRESHOLDS}", "--collect-only", "-q", "-p", "no:cacheprovider", *options],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _refusal(run: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines pytest refused the run with (its error output, blank lines left out)."""
    return [line for line in run.stderr.splitlines() if line.strip()]


REFUSED = [
    pytest.param({"append": "thresholds:\n  FOO-999:\n    busbw_8gb_gbs: 300\n"},
                 ["37: thresholds.FOO-999: unknown check 'FOO-999' (expected a check id of the catalog)"],
                 id="unknown-check"),
    pytest.param({"append": "thresholds:\n  COLL-001:\n    busbw_8gb_gbs: fast\n"},
                 [": thresholds.COLL-001.busbw_8gb_gbs: comparison '>=' needs a number, got 'fast'"],
                 id="threshold-not-a-number"),
    pytest.param({"append": "thresholds:\n  COLL-001:\n    busbw_fast_gbs: 300\n"},
                 [": thresholds.COLL-001.busbw_fast_gbs: defined by none of the profiles (mi300x-thor2)"],
                 id="threshold-unknown-name"),
    pytest.param({"replace": ("10.0.0.12", "0.0.0.0")}, ["28: nodes[1].address: '0.0.0.0' is the unspecified address"],
                 id="address-0.0.0.0"),
    pytest.param({"replace": ("10.0.0.12", "255.255.255.255")},
                 ["28: nodes[1].address: '255.255.255.255' is the broadcast address"], id="address-255.255.255.255"),
    pytest.param({"replace": ("10.0.0.12", "224.0.0.1")}, ["28: nodes[1].address: '224.0.0.1' is a multicast address"],
                 id="address-224.0.0.1"),
    pytest.param({"replace": ("10.0.0.12", '"::"')}, ["28: nodes[1].address: '::' is the unspecified address"],
                 id="address-ipv6-unspecified"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "fragments"), REFUSED)
def test_the_validator_and_the_run_refuse_with_the_same_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], fragments: list[str]
) -> None:
    site = _site(tmp_path, **change)  # type: ignore[arg-type]
    status, lines = _validate(site, capsys)
    assert status == 1
    assert len(lines) == len(fragments), lines
    for line, fragment in zip(lines, fragments, strict=True):
        assert line.startswith(str(site)) and fragment in line, line
    run = _pytest(site)
    assert run.returncode == PYTEST_USAGE_ERROR, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert _refusal(run) == [f"ERROR: {lines[0]}", *lines[1:]]


def test_a_bad_scrub_pattern_is_refused_by_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = _site(tmp_path)
    status, lines = _validate(site, capsys, "--scrub", "[unterminated")
    assert status == 1 and len(lines) == 1 and lines[0].startswith("--scrub: invalid scrub pattern '[unterminated'")
    run = _pytest(site, "--scrub", "[unterminated")
    assert run.returncode == PYTEST_USAGE_ERROR
    assert _refusal(run) == [f"ERROR: {lines[0]}"]


def test_several_problems_are_all_listed_by_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = _site(tmp_path, append="thresholds:\n  COLL-001:\n    busbw_8gb_gbs: fast\n    busbw_fast_gbs: 1\n")
    status, lines = _validate(site, capsys)
    assert status == 1 and len(lines) == 2, lines
    run = _pytest(site)
    assert run.returncode == PYTEST_USAGE_ERROR
    assert _refusal(run) == [f"ERROR: {lines[0]}", *lines[1:]]


def test_valid_exactly_when_the_run_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = _site(tmp_path, append="thresholds:\n  COLL-001:\n    busbw_8gb_gbs: 300\n")
    status, lines = _validate(site, capsys)
    assert (status, lines) == (0, [f"{site}: valid"])
    run = _pytest(site)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr
