"""A real sshd on loopback for the transport tests (skipped with the reason where sshd cannot run)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback_sshd import LoopbackSshd

from pytest_gpufabric.lab.sshd import SSHD


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
