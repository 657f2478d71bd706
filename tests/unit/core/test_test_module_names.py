"""The project's test files never share a basename with a suite module.

pytest imports test files of directories without ``__init__.py`` under their basename: once a worker has
imported ``tests/.../test_osu.py`` as ``test_osu``, an in-process run (pytester) of ``suites/acceptance`` in
the same worker fails with "import file mismatch" on ``suites/acceptance/test_osu.py``. Which files share a
worker depends on xdist's scheduling, so the clash shows only now and then; this test shows it always.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_no_test_file_shadows_a_suite_module() -> None:
    suite_modules = {path.name for path in (REPO / "suites").rglob("test_*.py")}
    clashes = sorted(
        str(path.relative_to(REPO)) for path in (REPO / "tests").rglob("test_*.py") if path.name in suite_modules
    )
    assert suite_modules and not clashes, f"rename these test files (a suite module has the same name): {clashes}"
