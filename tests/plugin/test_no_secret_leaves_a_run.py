"""No planted secret leaves a run: a live run (local transport: real commands on this machine) whose node
prints a private key, a bearer token, a password and a site secret, with every artifact on (``--html``,
``--alluredir``, ``--record``, results file, ``--schedule-log``, ``-rA --tb=long``); and a replay of a
recording made before the site secret's ``--scrub`` pattern was added. Each artifact is searched for the
secrets (base64 blobs decoded, as the self-contained HTML embeds its extras) and must show ``<scrubbed>``
where they stood."""

from __future__ import annotations

import base64
import binascii
import copy
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from sitekit import BASE_SITE, PROFILE

SCRUBBED = "<scrubbed>"
SITE_PATTERN = r"site-[a-z]+-internal"
SECRETS = {
    "private key": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB",
    "bearer token": "eyJhbGciOiJIUzI1NiJ9.Z3B1ZmFicmlj.c2lnbmF0dXJl",
    "password": "hunter2-xyzzy",
    "token": "sk-live-0123456789abcdef",
    "command password": "cmd-secret-5150",
    "site secret": "site-kestrel-internal",
}
KERNEL_LOG = f"""[    0.000000] Linux version 6.1.0 (debian-kernel@lists.debian.org)
[   12.345678] bnxt_en 0000:1d:00.0 enp29s0np0: NIC Link is Up, 400000 Mbps full duplex
[   13.000001] provisioning: password={SECRETS["password"]} token: {SECRETS["token"]}
[   13.000002] provisioning: curl -H 'Authorization: Bearer {SECRETS["bearer token"]}' https://bmc/redfish/v1
[   13.000003] provisioning: joined realm {SECRETS["site secret"]}
-----BEGIN OPENSSH PRIVATE KEY-----
{SECRETS["private key"]}
-----END OPENSSH PRIVATE KEY-----
"""
CHECKS = '''
import pytest

COMMAND = "cat {log} # password={command_password}"


@pytest.mark.check("HOST-005")
def test_kernel_log(node, gpufabric):
    out = gpufabric.run(node.id, COMMAND).stdout
    print(out)  # a captured section: -rA shows it, the reports keep it
    assert "clean" in out, "kernel log of " + node.id + ":\\n" + out


@pytest.mark.check("PERF-006")
def test_pair_log(node_pair, gpufabric):
    out = gpufabric.run(node_pair.a.name, COMMAND).stdout
    assert not out, out
'''


@dataclass(frozen=True)
class Run:
    """A finished run: its terminal output and the directories it wrote."""

    terminal: str
    html: Path
    allure: Path
    results: Path
    schedule_log: Path
    recording: Path


def _project(root: Path) -> None:
    site = copy.deepcopy(BASE_SITE)
    site["transport"] = "local"
    site["defaults"]["platform"]["gpu_vendor"] = "amd"
    (root / "site.yaml").write_text(yaml.safe_dump(site, sort_keys=False))
    (root / "thresholds").mkdir()
    (root / "thresholds" / "p.yaml").write_text(PROFILE)
    (root / "kernel.log").write_text(KERNEL_LOG)
    (root / "test_secrets.py").write_text(
        CHECKS.format(log=root / "kernel.log", command_password=SECRETS["command password"])
    )


def _run(root: Path, out: Path, recording: Path, *options: str) -> Run:
    run = Run("", out / "report.html", out / "allure", out / "results", out / "schedule.jsonl", recording)
    argv = [
        sys.executable, "-m", "pytest", str(root / "test_secrets.py"), f"--cluster={root / 'site.yaml'}",
        f"--thresholds-dir={root / 'thresholds'}", f"--gpufabric-results={run.results}",
        f"--html={run.html}", "--self-contained-html", f"--alluredir={run.allure}",
        f"--schedule-log={run.schedule_log}", "-rA", "--tb=long", "-p", "no:cacheprovider", *options,
    ]  # fmt: skip
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr  # the checks fail on purpose
    return Run(done.stdout + done.stderr, run.html, run.allure, run.results, run.schedule_log, recording)


def readable_text(path: Path) -> str:
    """A file's text, with every base64 blob in it decoded and appended (self-contained HTML embeds
    extras as base64)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    decoded = []
    for blob in re.findall(r"[A-Za-z0-9+/]{40,}={0,2}", text):
        try:
            decoded.append(base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8", errors="replace"))
        except (binascii.Error, ValueError):
            continue
    return "\n".join([text, *decoded])


def leaks(text: str) -> list[str]:
    return [name for name, secret in SECRETS.items() if secret in text]


def files_of(target: Path) -> list[Path]:
    return sorted(p for p in target.rglob("*") if p.is_file()) if target.is_dir() else [target]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A live run, recorded, with every artifact and the site secret's pattern (-n 0)."""
    root = tmp_path_factory.mktemp("live")
    _project(root)
    return _run(root, root / "out", root / "recording", f"--record={root / 'recording'}", "--scrub", SITE_PATTERN)


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A recording made without the site secret's pattern, replayed with it (-n 2, reports crossing from
    workers)."""
    root = tmp_path_factory.mktemp("replay")
    _project(root)
    _run(root, root / "recorded", root / "recording", f"--record={root / 'recording'}")
    assert leaks(readable_text(root / "recording" / "nodes" / "node01.yaml")) == ["site secret"]  # the premise
    return _run(root, root / "out", root / "recording", f"--replay={root / 'recording'}",
                "--scrub", SITE_PATTERN, "-n", "2")  # fmt: skip


ARTIFACTS = ["html", "allure", "results", "schedule_log", "terminal"]


def _artifact_texts(run: Run, artifact: str) -> dict[str, str]:
    if artifact == "terminal":
        return {"terminal output": run.terminal}
    return {str(path): readable_text(path) for path in files_of(getattr(run, artifact))}


def _assert_scrubbed(run: Run, artifact: str, *, shows_scrubbed: bool = True) -> None:
    texts = _artifact_texts(run, artifact)
    assert texts, f"the run wrote no {artifact}"
    found = {where: leaked for where, text in texts.items() if (leaked := leaks(text))}
    assert found == {}, f"secrets in {artifact}: {found}"
    if shows_scrubbed:
        assert any(SCRUBBED in text for text in texts.values()), f"no {SCRUBBED} in {artifact}"


@pytest.mark.parametrize("artifact", ARTIFACTS)
def test_no_secret_in_an_artifact_of_a_live_run(live: Run, artifact: str) -> None:
    _assert_scrubbed(live, artifact, shows_scrubbed=artifact != "schedule_log")


def test_no_secret_in_the_recording_of_a_live_run(live: Run) -> None:
    _assert_scrubbed(live, "recording")


def test_allure_attachments_hold_the_scrubbed_outputs(live: Run) -> None:
    attachments = [readable_text(p) for p in live.allure.glob("*-attachment.txt")]
    assert any(f"token: {SCRUBBED}" in text and "NIC Link is Up" in text for text in attachments), attachments


@pytest.mark.parametrize("artifact", ARTIFACTS)
def test_no_secret_in_an_artifact_of_a_replay_scrubbed_by_a_newer_pattern(replay: Run, artifact: str) -> None:
    _assert_scrubbed(replay, artifact, shows_scrubbed=artifact != "schedule_log")


def test_the_replay_shows_the_newer_pattern_at_work(replay: Run) -> None:
    results = readable_text(replay.results / "results.jsonl")
    assert f"joined realm {SCRUBBED}" in results
