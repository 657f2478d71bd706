"""Loads the plugin when pytest runs from a checkout where the package is not installed."""

from __future__ import annotations

import os
from importlib.metadata import entry_points


def _plugin_autoloaded() -> bool:
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(ep.name == "gpufabric" for ep in entry_points(group="pytest11"))


pytest_plugins = [] if _plugin_autoloaded() else ["pytest_gpufabric.plugin"]
