"""What a collected test item is about: its catalog check id and its inventory target (public helpers
shared by the plugin's hooks and the scheduling hooks)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_gpufabric.catalog import SCOPES


def check_id_of(item: pytest.Item) -> str | None:
    """The id of the item's ``@pytest.mark.check(ID)``, or None."""
    marker = item.get_closest_marker("check")
    return str(marker.args[0]) if marker and marker.args else None


def target_of(item: pytest.Item) -> tuple[str | None, Any]:
    """(scope fixture name, target) of a parametrized check item, or (None, None)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    for scope in SCOPES:
        if scope in params:
            return scope, params[scope]
    return None, None
