"""Where the threshold profiles and the acceptance suite are: inside the installed package (a wheel carries
them, see setup.py), else in the checkout this package runs from."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent


def bundled(relative: str) -> Path:
    """``relative`` (e.g. ``thresholds``) in the installed package if the wheel carries it, else in the checkout."""
    installed = PACKAGE / relative
    return installed if installed.is_dir() else CHECKOUT / relative


def thresholds_dir() -> Path:
    return bundled("thresholds")


def suite_dir() -> Path:
    return bundled("suites/acceptance")
