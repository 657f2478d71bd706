"""pytest hooks of pytest-gpufabric (options; the rest is wired in as the plugin grows)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpufabric", "GPU fabric acceptance (pytest-gpufabric)")
    group.addoption("--cluster", metavar="SITE_YAML", help="cluster inventory (site.yaml) to test")
