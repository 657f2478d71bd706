"""A real sshd on loopback for the transport tests (skipped with the reason where sshd cannot run)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest
from loopback_sshd import LoopbackSshd

from pytest_gpufabric.lab.sshd import SSHD
from pytest_gpufabric.transport import client_keys


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackSshd]:
    if not Path(SSHD).exists() or shutil.which("unshare") is None:
        pytest.skip(f"{SSHD} or unshare missing: install openssh-server (make test does)")
    if os.geteuid() != 0:
        pytest.skip("the loopback sshd needs root (private mount namespace for /run/sshd)")
    server = LoopbackSshd.create(tmp_path_factory.mktemp("sshd"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def key_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The key files read from now on (by ``ClientKeys``, which the SSH transport uses), in order."""
    read: list[str] = []
    reader = client_keys.read_client_key

    def counting(filename: str) -> paramiko.PKey:
        read.append(filename)
        return reader(filename)

    monkeypatch.setattr(client_keys, "read_client_key", counting)
    return read
