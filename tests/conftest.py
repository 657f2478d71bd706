"""Fixtures shared by the project's tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import Site

import pytest_gpufabric.parsers.all  # noqa: F401  # every parser registered once per process, before any in-process
# pytest run of a test (pytester restores the modules it found; a parser module imported inside a run was imported
# again by the next one, and registered twice)
from pytest_gpufabric.expectations import known_profiles
from pytest_gpufabric.inventory import Inventory, load_inventory

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def site(pytester: pytest.Pytester) -> Site:
    return Site(pytester)


@pytest.fixture(scope="session")
def demo_inventory() -> Inventory:
    """The inventory of the bundled demo cluster (recordings/demo/site.yaml)."""
    return load_inventory(REPO / "recordings" / "demo" / "site.yaml", known_profiles(REPO / "thresholds"))
