"""Shared paths and helpers of the inventory tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from inventory_files import EXAMPLE, KNOWN_PROFILES, MINIMAL, WriteSite

from pytest_gpufabric.inventory import Inventory, load_inventory


@pytest.fixture
def write_site(tmp_path: Path) -> WriteSite:
    """Writes YAML text to tmp_path/site.yaml and returns its path."""

    def write(text: str) -> Path:
        path = tmp_path / "site.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def example() -> Inventory:
    return load_inventory(EXAMPLE, KNOWN_PROFILES)


@pytest.fixture
def minimal_text() -> str:
    return MINIMAL.read_text(encoding="utf-8")
