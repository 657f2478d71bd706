"""What a collected test item is about: its catalog check id and its inventory target (public helpers
shared by the plugin's hooks and the scheduling hooks).

At the scale of real clusters a check's test function has tens of thousands of items, so what all items of a
function share (the check id of its marker, the scope fixture it is parametrized over) is read once per
function (``CheckTests``); an item adds only its own parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class CheckTest:
    """What every item of one test function shares: its check id, the scope fixture it is parametrized over,
    and whether a skip marker above the function (module, class) skips them all."""

    check_id: str | None
    scope: str | None
    skipped_above: bool = False

    def target(self, item: pytest.Item) -> Any:
        """The item's inventory target (None for an item without one)."""
        if self.scope is None:
            return None
        callspec = getattr(item, "callspec", None)
        return None if callspec is None else callspec.params.get(self.scope)

    def skipped(self, item: pytest.Item) -> bool:
        """Marked to be skipped: by a skip marker of the item's own (a not-applicable check, a parameter's
        marker, the function's) or above its function."""
        return self.skipped_above or any(mark.name == "skip" for mark in item.own_markers)


class CheckTests:
    """The ``CheckTest`` of each item, read from the first item of its test function and reused for the rest."""

    def __init__(self) -> None:
        self._tests: dict[tuple[Any, str], CheckTest] = {}

    def of(self, item: pytest.Item) -> CheckTest:
        key = (item.parent, getattr(item, "originalname", item.name))
        test = self._tests.get(key)
        if test is None:
            skipped_above = item.parent is not None and item.parent.get_closest_marker("skip") is not None
            test = self._tests[key] = CheckTest(check_id_of(item), target_of(item)[0], skipped_above)
        return test

    def check_id(self, item: pytest.Item) -> str | None:
        return self.of(item).check_id

    def target(self, item: pytest.Item) -> Any:
        return self.of(item).target(item)
