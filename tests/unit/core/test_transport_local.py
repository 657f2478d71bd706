"""The local transport and the remote-side bound every command gets."""

from __future__ import annotations

import subprocess
import uuid

from pytest_gpufabric.transport.bounded import bounded_command
from pytest_gpufabric.transport.local import LocalTransport


def test_runs_through_bash_and_keeps_stdout_stderr_and_exit_code() -> None:
    result = LocalTransport().run("n1", "echo out; echo err >&2; exit 3", 10)
    assert (result.node, result.stdout, result.stderr, result.exit_code) == ("n1", "out\n", "err\n", 3)
    assert result.command == "echo out; echo err >&2; exit 3"


def test_c_locale_is_forced() -> None:
    assert LocalTransport().run("n1", "echo $LC_ALL", 10).stdout == "C\n"


def test_timeout_kills_the_whole_pipeline_and_leaves_no_process() -> None:
    marker = f"gpufabric-{uuid.uuid4().hex}"
    result = LocalTransport().run("n1", f"bash -c 'exec -a {marker} sleep 300' | cat; sleep 300", 1)
    assert result.exit_code == 124
    assert result.duration_s < 10
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True, check=False)
    assert left.stdout == ""


def test_bounded_command_quotes_the_command_once() -> None:
    wrapped = bounded_command("echo 'a b'; rm -rf /nonexistent-$(id -u)", 5, sudo=True)
    assert wrapped.startswith("sudo -n env LC_ALL=C timeout --kill-after=5s 5s bash -c ")
    assert subprocess.run(["bash", "-n", "-c", wrapped], check=False).returncode == 0
