"""Dependencies chosen, not collected: every runtime dependency declared in pyproject.toml is imported by
the package (or, for a pytest plugin the package relies on by name, used by that name), and every
third-party module the package imports at run time is declared. Distribution names are mapped to import
names with ``importlib.metadata.packages_distributions`` (``PyYAML`` -> ``yaml``)."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "pytest_gpufabric"
# pytest plugins the package uses through pytest rather than by import, with the name that shows the use.
USED_BY_NAME = {
    "pytest-xdist": "workerinput",  # the controller hands its run id and lock directory to each worker
    "allure-pytest": "allure_pytest",  # --alluredir; the plugin checks it is active
    "openpyxl": 'engine="openpyxl"',  # pandas writes summary.xlsx through it
}


def normalized(distribution: str) -> str:
    """PEP 503 name: ``PyYAML`` and ``pyyaml`` are one distribution."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def declared_dependencies(pyproject: Path) -> set[str]:
    """The runtime dependencies (``[project] dependencies``), normalized names without versions."""
    requirements = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    return {normalized(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]) for requirement in requirements}


def imported_modules(sources: Iterable[Path]) -> set[str]:
    """Top-level names of every module imported at run time (``if TYPE_CHECKING:`` blocks left out)."""
    found: set[str] = set()
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        checking_only = {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for statement in block.body
            for node in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if id(node) in checking_only:
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def unused_dependencies(
    declared: set[str], imported: set[str], distributions: Mapping[str, list[str]], source_text: str
) -> set[str]:
    """Declared distributions that provide none of the imported modules and are not used by name."""
    provided = {normalized(dist) for module in imported for dist in distributions.get(module, [])}
    by_name = {dist for dist, name in USED_BY_NAME.items() if name in source_text}
    return declared - provided - by_name


def undeclared_imports(declared: set[str], imported: set[str], distributions: Mapping[str, list[str]]) -> set[str]:
    """Third-party modules imported at run time whose distribution is not declared."""
    third_party = imported - set(sys.stdlib_module_names) - {PACKAGE.name, "__future__"}
    return {
        module for module in third_party
        if not {normalized(dist) for dist in distributions.get(module, [module])} & declared
    }  # fmt: skip


def lab_extra(pyproject: Path) -> set[str]:
    """The ``lab`` extra: what the namespace lab and the loopback target need beyond the runtime dependencies."""
    extras = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    return {normalized(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]) for requirement in extras["lab"]}


def _package() -> tuple[set[str], set[str], str]:
    sources = sorted(path for path in PACKAGE.rglob("*.py") if "lab" not in path.relative_to(PACKAGE).parts)
    text = "\n".join(path.read_text(encoding="utf-8") for path in sources)
    return declared_dependencies(REPO / "pyproject.toml"), imported_modules(sources), text


def test_the_lab_imports_only_runtime_dependencies_and_its_extra() -> None:
    """pytest_gpufabric.lab (a test bed: namespaces, the loopback target) may use the ``lab`` extra as well."""
    declared = declared_dependencies(REPO / "pyproject.toml") | lab_extra(REPO / "pyproject.toml")
    lab = sorted((PACKAGE / "lab").rglob("*.py"))
    assert undeclared_imports(declared, imported_modules(lab), packages_distributions()) == set()
    assert lab_extra(REPO / "pyproject.toml") <= {normalized(dist) for module in imported_modules(lab)
                                                     for dist in packages_distributions().get(module, [])}


def test_every_declared_runtime_dependency_is_used_by_the_package() -> None:
    declared, imported, text = _package()
    assert unused_dependencies(declared, imported, packages_distributions(), text) == set()


def test_every_third_party_module_the_package_imports_is_declared() -> None:
    declared, imported, _ = _package()
    assert undeclared_imports(declared, imported, packages_distributions()) == set()


def test_a_declared_dependency_imported_nowhere_is_reported() -> None:
    declared, imported, text = _package()
    distributions = packages_distributions()
    assert unused_dependencies(declared | {"tabulate"}, imported, distributions, text) == {"tabulate"}
    assert unused_dependencies(declared, imported - {"yaml"}, distributions, text) == {"pyyaml"}
    without_xdist_use = text.replace(USED_BY_NAME["pytest-xdist"], "")
    assert unused_dependencies(declared, imported, distributions, without_xdist_use) == {"pytest-xdist"}


def test_an_import_of_an_undeclared_distribution_is_reported() -> None:
    declared, imported, _ = _package()
    assert undeclared_imports(declared - {"filelock"}, imported, packages_distributions()) == {"filelock"}


def test_imports_only_for_type_checking_are_not_run_time_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pandas\nimport yaml\n")
    assert imported_modules([module]) == {"typing", "yaml"}
