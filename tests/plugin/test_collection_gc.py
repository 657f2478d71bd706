"""The cyclic garbage collector is paused while a cluster run collects, the items are frozen out of it after, it
runs less often while the items run, and a run inside a longer-lived process hands the items and the thresholds
back when it ends (nothing stays frozen)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from pytest_gpufabric.collection_gc import RUN_THRESHOLDS

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"


class GcWatch:
    """What the collector's state was while the items were ordered and once collection was done."""

    def __init__(self) -> None:
        self.enabled_while_collecting: bool | None = None
        self.frozen_after_collection = 0
        self.thresholds_while_running: tuple[int, ...] = ()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self) -> None:
        self.enabled_while_collecting = gc.isenabled()

    def pytest_sessionfinish(self) -> None:
        self.frozen_after_collection = gc.get_freeze_count()
        self.thresholds_while_running = gc.get_threshold()


def test_collection_pauses_the_collector_and_an_in_process_run_leaves_nothing_frozen(pytester: pytest.Pytester) -> None:
    assert gc.isenabled() and gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    assert thresholds != RUN_THRESHOLDS
    watch = GcWatch()
    result = pytester.inline_run(str(REPO / "suites" / "acceptance" / "test_host.py"), f"--cluster={DEMO / 'site.yaml'}",
                                 f"--thresholds-dir={REPO / 'thresholds'}", "--collect-only", "-p", "no:cacheprovider",
                                 plugins=[watch])
    assert result.ret == pytest.ExitCode.OK
    assert watch.enabled_while_collecting is False
    assert watch.frozen_after_collection > 0  # the collected items (and all else alive then) left out of collections
    assert watch.thresholds_while_running == RUN_THRESHOLDS
    assert gc.isenabled() and gc.get_freeze_count() == 0  # handed back at the end of the in-process run
    assert gc.get_threshold() == thresholds
