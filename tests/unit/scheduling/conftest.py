"""Fixtures of the scheduling tests."""

from __future__ import annotations

import pytest

from tests.unit.scheduling.helpers import node_names


@pytest.fixture
def nodes64() -> list[str]:
    return node_names(64)
