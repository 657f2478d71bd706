"""Which catalog checks the acceptance suite implements, read from the test files without running them."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.bundled import suite_dir


@dataclass(frozen=True)
class ImplementedCheck:
    check_id: str
    test: str  # file::function
    markers: tuple[str, ...] = ()  # the names of its pytest.mark decorators (as -m matches them)


def _marker_name(decorator: ast.expr) -> str | None:
    """``check`` of ``@pytest.mark.check(...)``, ``slow`` of ``@pytest.mark.slow``; None for other decorators."""
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "mark":
        return func.attr
    return None


def _check_ids(decorator: ast.expr) -> list[str]:
    """The id of a ``@pytest.mark.check("ID")`` decorator, or nothing."""
    if not isinstance(decorator, ast.Call) or not decorator.args:
        return []
    func = decorator.func
    if isinstance(func, ast.Attribute) and func.attr == "check" and isinstance(decorator.args[0], ast.Constant):
        return [str(decorator.args[0].value)]
    return []


def implemented_checks(suite_dir: Path) -> list[ImplementedCheck]:
    """Every check-tagged test function under ``suite_dir``, sorted by check id then test."""
    found = []
    for path in sorted(suite_dir.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                markers = tuple(dict.fromkeys(name for d in node.decorator_list if (name := _marker_name(d))))
                for decorator in node.decorator_list:
                    for check_id in _check_ids(decorator):
                        found.append(ImplementedCheck(check_id, f"{path.name}::{node.name}", markers))
    return sorted(found, key=lambda c: (c.check_id, c.test))


def default_suite_dir() -> Path:
    """The acceptance suite installed with this package, or that of its checkout."""
    return suite_dir()


def check_of_node_id(rootdir: Path, node_id: str) -> str | None:
    """The check id of a node id's test function, read from its file (for an item whose worker crashed before
    it reported anything); None when the file or the function is not found."""
    path, _, rest = node_id.partition("::")
    function = rest.rpartition("::")[2].split("[", 1)[0]
    file = rootdir / path
    if not file.is_file():
        return None
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except (SyntaxError, OSError, UnicodeDecodeError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            ids = [check_id for decorator in node.decorator_list for check_id in _check_ids(decorator)]
            return ids[0] if ids else None
    return None
