"""What an area module of the demo provides: the outputs of the commands its checks run on one node."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

from tools.demo_cluster.topology import DemoNode

Outputs = dict[str, tuple[str, int]]  # command -> (stdout, exit code)
Builder = Callable[[DemoNode], Outputs]


def area_modules() -> list[ModuleType]:
    """Every module of tools/demo_cluster/areas, in name order; each defines ``build(node) -> Outputs``."""
    from tools.demo_cluster import areas

    return [importlib.import_module(f"{areas.__name__}.{m.name}") for m in sorted(pkgutil.iter_modules(areas.__path__), key=lambda m: m.name)]


def all_builders() -> list[Builder]:
    return [module.build for module in area_modules()]
