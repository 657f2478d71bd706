"""Shared fixtures of the acceptance checks."""

from __future__ import annotations

import pytest

from pytest_gpufabric.inventory import Node
from pytest_gpufabric.plugin import SESSION_KEY


@pytest.fixture
def profile_peers(request: pytest.FixtureRequest) -> tuple[Node, ...]:
    """Every inventory node judged by the same thresholds profile as the item's first node (the nodes
    that must run the same driver and firmware versions)."""
    session = request.config.stash[SESSION_KEY]
    target = next(
        request.getfixturevalue(name) for name in ("node", "nic") if name in request.fixturenames
    )
    own = session.profile_for(target.nodes).name
    return tuple(n for n in session.inventory.nodes if session.profile_for((n,)).name == own)
