"""Memory at scale: before building an item the plugin counts them (from the inventory, the pair policy and the
check tests of the paths given) and prints the count; above --max-items it stops at once with the pair policy that
fits. What pytest keeps per item is shared or dropped as it is collected, and every item still runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from pytest_gpufabric.collection_estimate import check_test_scopes, estimate
from pytest_gpufabric.inventory import load_inventory
from pytest_gpufabric.expectations import known_profiles
from pytest_gpufabric.scheduling.pair_option import parse_pair_policy
from tools.synth_inventory import synthesize

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "suites" / "acceptance"
ESTIMATE = re.compile(r"gpufabric: about ([\d,]+) items to collect")


def _site(pytester: pytest.Pytester, nodes: int) -> Path:
    site = pytester.path / f"site-{nodes}.yaml"
    site.write_text(yaml.safe_dump(synthesize(nodes, 8), sort_keys=False), encoding="utf-8")
    return site


@pytest.mark.parametrize("policy", ["all", "rounds:3"])
def test_the_estimate_is_the_number_collected(pytester: pytest.Pytester, policy: str) -> None:
    site = _site(pytester, 24)
    result = pytester.runpytest_inprocess(str(SUITE), f"--cluster={site}", f"--thresholds-dir={REPO / 'thresholds'}",
                                          f"--pair-policy={policy}", "--collect-only", "-q", "-p", "no:cacheprovider")
    printed = ESTIMATE.search(result.stdout.str())
    collected = re.search(r"(\d+) tests? collected", result.stdout.str())
    assert printed and collected, result.stdout.str()[-2000:]
    inventory = load_inventory(site, known_profiles(REPO / "thresholds"))
    counted = estimate(inventory, parse_pair_policy(policy), check_test_scopes([SUITE])).items
    assert int(printed.group(1).replace(",", "")) == counted
    assert 0 <= int(collected.group(1)) - counted <= 20  # a check test parametrized further (COLL-005 per collective) counts once


def test_above_the_bound_the_run_stops_before_collecting_with_the_policy_that_fits(pytester: pytest.Pytester) -> None:
    site = _site(pytester, 24)
    result = pytester.runpytest_inprocess(str(SUITE), f"--cluster={site}", f"--thresholds-dir={REPO / 'thresholds'}",
                                          "--max-items=8000", "--collect-only", "-q", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    message = result.stderr.str()
    found = re.search(r"above --max-items=8,000\. Run --pair-policy=rounds:(\d+) \(about ([\d,]+) items", message)
    assert found, message
    fits = pytester.runpytest_inprocess(str(SUITE), f"--cluster={site}", f"--thresholds-dir={REPO / 'thresholds'}",
                                        "--max-items=8000", f"--pair-policy=rounds:{found.group(1)}", "--collect-only",
                                        "-q", "-p", "no:cacheprovider")
    assert fits.ret == pytest.ExitCode.OK and int(found.group(2).replace(",", "")) <= 8000


def test_when_the_node_items_alone_do_not_fit_it_says_what_to_raise(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(str(SUITE), f"--cluster={_site(pytester, 24)}", f"--thresholds-dir={REPO / 'thresholds'}",
                                          "--max-items=100", "--collect-only", "-q", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert re.search(r"alone do not fit: raise --max-items to at least [\d,]+ \(about [\d.]+ GB", result.stderr.str())
