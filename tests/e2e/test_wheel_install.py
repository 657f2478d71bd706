"""Install for a real site: the built wheel goes into a fresh virtual environment as an unprivileged user (no root,
no make, no checkout on the way), and the installed ``gpufabric`` runs: its help, its checks, and a replay of a
real recording from a folder outside the checkout, with the same outcomes as the checkout's own suite."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RECORDING = REPO / "recordings" / "device-h200"
UNPRIVILEGED = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--")
PYTHONS = ("/usr/local/bin/python3", "/usr/bin/python3")  # interpreters an unprivileged user can run


def _unprivileged() -> bool:
    """Whether the install runs as an unprivileged user (it does whenever the tests run as root)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def _as_user(argv: list[str]) -> list[str]:
    return [*UNPRIVILEGED, *argv] if _unprivileged() else argv


def _python() -> str:
    """A Python 3.10+ the installing user can run: the system's as an unprivileged user (this one may lie in root's
    home), else this one."""
    for candidate in (*PYTHONS, sys.executable) if _unprivileged() else (sys.executable,):
        probe = subprocess.run(_as_user([candidate, "-c", "import sys, venv; assert sys.version_info >= (3, 10)"]),
                               capture_output=True, timeout=60, check=False)
        if probe.returncode == 0:
            return candidate
    pytest.fail(f"no Python 3.10+ with venv that {'nobody' if _unprivileged() else 'this user'} can run among "
                f"{sys.executable}, {', '.join(PYTHONS)}")


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def installed() -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """(the venv's bin folder, a site folder outside the checkout holding a copy of a real recording, the
    environment) after building the wheel and installing it as an unprivileged user."""
    root = Path(tempfile.mkdtemp(prefix="gpufabric-wheel-"))
    try:
        root.chmod(0o777)
        env = {**os.environ, "HOME": str(root), "PIP_NO_CACHE_DIR": "1"}
        env.pop("PYTHONPATH", None)
        built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(REPO)], root, env)
        assert built.returncode == 0, built.stdout + built.stderr
        wheels = list((root / "dist").glob("pytest_gpufabric-*.whl"))
        assert len(wheels) == 1
        venv = root / "venv"
        made = _run(_as_user([_python(), "-m", "venv", str(venv)]), root, env)
        assert made.returncode == 0, made.stderr
        pip = _run(_as_user([str(venv / "bin" / "pip"), "install", "-q", str(wheels[0])]), root, env, timeout=900)
        assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
        site = root / "site"
        shutil.copytree(RECORDING, site / "device-h200")
        for path in (site, *site.rglob("*")):
            path.chmod(0o777 if path.is_dir() else 0o644)
        yield venv / "bin", site, env
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_wheel_carries_profiles_catalog_hints_and_suite(installed: tuple[Path, Path, dict[str, str]]) -> None:
    bin_dir, site, env = installed
    helped = _run(_as_user([str(bin_dir / "gpufabric"), "--help"]), site, env)
    assert helped.returncode == 0 and "run the acceptance suite installed with the plugin" in helped.stdout
    checks = _run(_as_user([str(bin_dir / "gpufabric"), "checks", "--json"]), site, env)
    assert checks.returncode == 0, checks.stderr
    installed_checks = {row["id"] for row in json.loads(checks.stdout)}
    assert {"COLL-001", "GPU-006", "PERF-002"} <= installed_checks
    validated = _run(_as_user([str(bin_dir / "gpufabric"), "inventory", "validate", str(REPO / "recordings" / "demo" / "site.yaml")]), site, env)
    assert validated.returncode == 0, validated.stderr  # the profiles the demo names are installed with the wheel
    table = _run(_as_user([str(bin_dir / "gpufabric"), "preflight", "--table"]), site, env)
    assert table.returncode == 0 and "| PERF-001 |" in table.stdout, table.stderr  # the checks' prerequisites


def test_the_installed_suite_replays_a_recording_as_the_checkout_does(installed: tuple[Path, Path, dict[str, str]],
                                                                      tmp_path: Path) -> None:
    # the site's own copy of a real recording, replayed by the installed suite as an unprivileged user
    bin_dir, site, env = installed
    results = site / "results"
    copy = site / "device-h200"
    replay = _run(_as_user([str(bin_dir / "gpufabric"), "run", f"--cluster={copy / 'site.yaml'}",
                            f"--replay={copy / 'recording'}", f"--gpufabric-results={results}", "-q"]), site, env)
    assert replay.returncode == 1, replay.stdout[-3000:] + replay.stderr[-3000:]  # completed, with the machine's failures
    assert "PytestAssertRewriteWarning" not in replay.stdout + replay.stderr
    assert (site / ".pytest_cache").is_dir()  # --lf works from the site's folder
    checkout = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={RECORDING / 'site.yaml'}",
         f"--replay={RECORDING / 'recording'}", f"--gpufabric-results={tmp_path}", "-p", "no:cacheprovider", "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )
    assert checkout.returncode == 1, checkout.stdout[-3000:]

    def outcomes(folder: Path) -> dict[str, str]:
        rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
        return {row["node_id"]: row["outcome"] for row in rows}

    installed_outcomes = outcomes(results)
    assert installed_outcomes == outcomes(tmp_path)  # the same test ids (suites/acceptance/...) and verdicts
    assert all(node_id.startswith("suites/acceptance/") for node_id in installed_outcomes)
