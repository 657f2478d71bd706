"""Build hook of the wheel: besides the package, it carries the threshold profiles (``thresholds/``) and the
acceptance suite (``suites/acceptance/``) as data of ``pytest_gpufabric``, so a ``pip install`` on a controller
finds them without a checkout (``pytest_gpufabric/thresholds``, ``pytest_gpufabric/suites/acceptance``).
Everything else is declared in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED = ("thresholds", "suites/acceptance")  # checkout folder -> the same path under pytest_gpufabric/
SUFFIXES = (".yaml", ".py")


class BuildWithProfilesAndSuite(build_py):
    """``build_py`` that copies the bundled folders into the package (not in editable installs: a checkout
    finds them where they are)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for folder in BUNDLED:
            for path in sorted(Path(folder).rglob("*")):
                if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                    target = Path(self.build_lib, "pytest_gpufabric", path)
                    self.mkpath(str(target.parent))
                    self.copy_file(str(path), str(target))


setup(cmdclass={"build_py": BuildWithProfilesAndSuite})
