"""Fixtures of the lab tests: one namespace lab per session, faults reverted after every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_gpufabric.lab import Faults, Lab, LabUnavailable, sweep_stale
from pytest_gpufabric.lab.preflight import check_can_create_namespaces

INSTALLER = Path(__file__).resolve().parents[2] / "tools" / "install-system-deps.sh"


@pytest.fixture(scope="session")
def lab_host() -> None:
    """Skip (only) when this machine cannot create network namespaces; sweep labs left by dead runs."""
    try:
        check_can_create_namespaces()
    except LabUnavailable as exc:
        pytest.skip(f"no namespace lab on this machine: {exc}")
    sweep_stale()


@pytest.fixture(scope="session")
def lab(lab_host: None) -> Iterator[Lab]:
    """A 4-node, 2-rail lab shared by the session."""
    with Lab(nodes=4, rails=2, installer=INSTALLER) as built:
        yield built


@pytest.fixture
def faults(lab: Lab) -> Iterator[Faults]:
    """The session lab's faults; whatever a test injects is reverted when it ends (passed or not)."""
    yield lab.faults
    lab.faults.revert_all()
