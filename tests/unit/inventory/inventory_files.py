"""Paths of the inventory fixtures and the profiles the tests treat as installed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

INVENTORIES = Path(__file__).resolve().parents[3] / "fixtures" / "inventories"
EXAMPLE = INVENTORIES / "example-site.yaml"
EXAMPLE_VMWARE = INVENTORIES / "example-vmware-site.yaml"
MINIMAL = INVENTORIES / "minimal-site.yaml"
BROKEN = INVENTORIES / "broken"
KNOWN_PROFILES = frozenset({"mi300x-thor2", "h100-thor2-vmware"})

WriteSite = Callable[[str], Path]
