"""Fixtures shared by the project's tests."""

from __future__ import annotations

import pytest
from sitekit import Site


@pytest.fixture
def site(pytester: pytest.Pytester) -> Site:
    return Site(pytester)
