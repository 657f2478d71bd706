"""What a collected item shares while it waits to run (``collection_memory``): its node id's names and parameter
id are one copy for all items, its stash and per-run lists are shared read-only stand-ins, and it gets its own
while it runs (a real replay of the demo's host checks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sitekit import Site

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"

WATCH = '''
"""The items as they wait (after every plugin ordered and marked them) and as each one runs, written to watch.json."""
import json
import pytest
from _pytest.fixtures import reorder_items
from pytest_gpufabric.collection_memory import EMPTY_UNTIL_RUN

PROBE = pytest.StashKey[str]()
FOUND = {"running": []}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    same = [item for item in items if item.originalname == items[0].originalname]
    FOUND.update(
        items=len(items), names_shared=same[0]._id.names is same[1]._id.names,
        keywords=same[0].callspec.id in same[0].keywords and same[0].name in same[0].keywords,
        reordered_by_pytest=reorder_items(items) != items,  # what the skipped ordering would have done
        waiting=sorted({f"{type(item.stash).__name__} {item._report_sections is EMPTY_UNTIL_RUN} "
                        f"{item.user_properties is EMPTY_UNTIL_RUN}" for item in items}))
    try:
        items[0].stash[PROBE] = "collected"
    except TypeError as exc:
        FOUND["refused"] = str(exc)
    FOUND["collected"] = items


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    item.stash[PROBE] = item.nodeid  # a plugin writing the stash of the item that runs
    FOUND["running"].append(f"{type(item.stash).__name__} {type(item._report_sections).__name__} "
                            f"{type(item.user_properties).__name__} {item.stash[PROBE] == item.nodeid} "
                            f"{item.nodeid is item.nodeid}")  # one string while it runs (allure-pytest keys by its id)


def pytest_unconfigure(config):
    items = FOUND.pop("collected", [])
    FOUND["dropped_after_run"] = all(item._report_sections is EMPTY_UNTIL_RUN for item in items)
    with open("watch.json", "w") as out:
        json.dump(FOUND, out)
'''


def test_waiting_items_share_their_ids_stash_and_lists_and_each_runs_with_its_own(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(watcher=WATCH)
    result = pytester.runpytest_subprocess(
        str(REPO / "suites" / "acceptance" / "test_host.py"), f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}",
        f"--thresholds-dir={REPO / 'thresholds'}", "-p", "no:cacheprovider", "-p", "watcher",
        "-k", "test_numa_balancing_disabled or test_iommu")
    found = json.loads((pytester.path / "watch.json").read_text())
    outcomes = result.parseoutcomes()
    assert found["items"] >= 4 and found["names_shared"] and found["keywords"]
    assert found["waiting"] == ["WaitingStash True True"] and "written only while the item runs" in found["refused"]
    assert not found["reordered_by_pytest"]  # pytest's fixture ordering, skipped, would have kept the collected order
    assert len(found["running"]) == outcomes.get("passed", 0) + outcomes.get("failed", 0) > 0
    assert set(found["running"]) == {"Stash list list True True"} and found["dropped_after_run"]


MODULE_PARAMETERS = '''
import pytest

@pytest.fixture(scope="module", params=["a", "b"])
def shared(request):
    return request.param

@pytest.mark.parametrize("n", [1, 2])
def test_first(shared, n):
    pass

def test_second(shared):
    pass
'''


def test_pytest_still_orders_items_by_a_fixture_above_function_scope(site: Site) -> None:
    site.pytester.makepyfile(test_module_parameters=MODULE_PARAMETERS)
    site.healthy_recording()
    result = site.run("--replay", str(site.recording), "test_module_parameters.py", "--collect-only", "-q")
    listed = [line.split("::")[1] for line in result.stdout.lines if "::" in line]
    assert listed == ["test_first[a-1]", "test_first[a-2]", "test_second[a]",  # grouped by the module's parameter
                      "test_first[b-1]", "test_first[b-2]", "test_second[b]"]


KEYWORDS_WATCH = '''
"""Each item's keywords as every plugin left them, then after a write, written to keywords.json."""
import json
import pytest
from pytest_gpufabric.collection_memory import add_markers
from pytest_gpufabric.plugin import SHARE_KEY

LABELS = [pytest.mark.label("area"), pytest.mark.label("check"), pytest.mark.slow(reason="again")]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    seen = []
    for item in items:
        words = item.keywords
        kept = {"type": type(words).__name__, "words": [[key, repr(words[key])] for key in words],
                "has": ["slow" in words, item.name in words, "absent" in words]}
        kept.update(name=item.name, repr=repr(item), markers=[mark.name for mark in item.own_markers],
                    nodeid=item.nodeid, kept_nodeid=item.nodeid is item.nodeid)
        if item.name.endswith("[b]") or item.name.endswith("[2]"):  # labels, as Allure's are added
            if item.config.option.cluster:
                add_markers(item, LABELS, item.config.stash[SHARE_KEY])
            else:
                for marker in LABELS:
                    item.add_marker(marker)
        kept["labelled"] = [type(words).__name__, [[key, repr(words[key])] for key in words],
                            [repr(mark) for mark in item.iter_markers()]]
        words["written"] = 1
        kept["after"] = [type(words).__name__, list(words)]
        seen.append(kept)
    items[0].add_marker("added")  # one item's own marker, not its siblings'
    seen.append([[mark.name for mark in item.iter_markers()] for item in items])
    with open("keywords.json", "w") as out:
        json.dump(seen, out)
'''

MARKED_TESTS = '''
import pytest

@pytest.mark.slow
@pytest.mark.parametrize("n", ["a", "b"])
def test_marked(n):
    pass

@pytest.mark.parametrize("n", [1, 2])
def test_plain(n):
    pass
'''


def test_shared_keywords_read_and_write_as_pytests_own(site: Site) -> None:
    """The keywords, markers, name and node id an item shares while it waits read as pytest's own (the same tests collected
    without an inventory: nothing shared), also with labels added to some items of each function as Allure's are
    (``add_markers``: shared too), a write gives the item its own again, and a marker added to one item is not its
    siblings'."""
    site.pytester.makepyfile(kwatch=KEYWORDS_WATCH, test_marked=MARKED_TESTS)
    site.healthy_recording()
    seen = []
    for extra in (["--cluster", str(site.write()), "--replay", str(site.recording)], []):
        result = site.pytester.runpytest_subprocess("test_marked.py", "-p", "kwatch", "--collect-only", "-q",
                                                    "-p", "no:cacheprovider", *extra)
        assert result.ret == 0, result.stdout.str()
        seen.append(json.loads((site.pytester.path / "keywords.json").read_text()))
    (*shared, shared_marks), (*plain, plain_marks) = seen
    assert [item["type"] for item in shared] == ["WaitingKeywords"] * 4
    assert [item["type"] for item in plain] == ["NodeKeywords"] * 4
    assert [item["words"] for item in shared] == [item["words"] for item in plain]
    assert [item["labelled"][1:] for item in shared] == [item["labelled"][1:] for item in plain]
    assert [item["labelled"][0] for item in shared] == ["WaitingKeywords"] * 4  # labels shared, not materialized
    assert [item["name"] for item in shared] == ["test_marked[a]", "test_marked[b]", "test_plain[1]", "test_plain[2]"]
    for key in ("name", "repr", "markers", "nodeid"):
        assert [item[key] for item in shared] == [item[key] for item in plain]
    assert [item["kept_nodeid"] for item in shared] == [False] * 4  # made when asked while waiting, not kept
    assert [item["kept_nodeid"] for item in plain] == [True] * 4
    assert shared_marks == plain_marks and "added" in shared_marks[0] and "added" not in shared_marks[1]
    assert [item["has"] for item in shared] == [[True, True, False]] * 2 + [[False, True, False]] * 2
    assert [item["after"] for item in shared] == [item["after"] for item in plain]
