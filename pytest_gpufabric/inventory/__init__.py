"""The cluster inventory (site.yaml): validated, immutable model and its loader."""

from __future__ import annotations

from pytest_gpufabric.inventory.frozen_map import FrozenMap
from pytest_gpufabric.inventory.loader import load_inventory, validate_inventory_file
from pytest_gpufabric.inventory.model import Gpu, Inventory, Nic, Node, Platform, SshConfig, Switch
from pytest_gpufabric.inventory.problems import InventoryError

__all__ = [
    "FrozenMap",
    "Gpu",
    "Inventory",
    "InventoryError",
    "Nic",
    "Node",
    "Platform",
    "SshConfig",
    "Switch",
    "load_inventory",
    "validate_inventory_file",
]
