"""Fixtures shared by the recording tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_gpufabric.recording import RecordingStore, Scrubber
from recordkit import SubprocessTransport


@pytest.fixture
def recording_dir(tmp_path: Path) -> Path:
    """Where a test's recording goes (not created: stores and transports create it)."""
    return tmp_path / "recording"


@pytest.fixture
def make_store(recording_dir: Path) -> Callable[..., RecordingStore]:
    """``make_store(run_id=None, patterns=())``: a store on ``recording_dir`` (one per simulated process)."""

    def make(run_id: str | None = None, patterns: tuple[str, ...] = ()) -> RecordingStore:
        return RecordingStore(recording_dir, run_id=run_id, scrubber=Scrubber(patterns))

    return make


@pytest.fixture
def live() -> SubprocessTransport:
    return SubprocessTransport()
