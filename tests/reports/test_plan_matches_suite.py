"""The plan names items exactly as the suite collects them: every required item of the demo's plan is an item
of the collected acceptance suite (so a full run can cover it), and each collected check item outside the plan is
one its profile or the catalog leaves out. Guards the plan against a test parametrized further than its target
(COLL-005's collectives) without the plan knowing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from demo_runs import DEMO, REPO

from pytest_gpufabric.signoff.plan import build_plan, site_pair_policy
from pytest_gpufabric.startup import prepare_run
from pytest_gpufabric.suite_index import implemented_checks


def test_every_required_item_is_collected(tmp_path: Path) -> None:
    setup = prepare_run(DEMO / "site.yaml", REPO / "thresholds")
    plan = build_plan(setup.inventory, setup.profiles, setup.catalog, site_pair_policy(setup.inventory, DEMO / "site.yaml"))
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}",
         "--collect-only", "-q", "-p", "no:cacheprovider", f"--gpufabric-results={tmp_path / 'results'}"],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    check_of = {found.test: found.check_id for found in implemented_checks(REPO / "suites" / "acceptance")}
    items = set()
    for line in collected.stdout.splitlines():
        if "::" in line and line.endswith("]"):
            path, _, rest = line.partition("::")
            function, _, param = rest.partition("[")
            items.add((check_of[f"{Path(path).name}::{function}"], param[:-1]))

    planned = {(check, item) for check, spec in plan.checks.items() for item in spec["items"]}
    assert planned and planned <= items
    assert not (tmp_path / "results").exists()  # --collect-only writes nothing
