"""How a check's verdict is settled from what it read: parts measured on their own, failures that stand whatever
could not be measured after them, and unmeasured parts that never let an item pass."""

from __future__ import annotations

import pytest

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing, ThresholdMissing
from pytest_gpufabric.expectations import Expectation, Profile
from pytest_gpufabric.transport.base import CommandResult


def _context() -> CheckContext:
    profile = Profile("p", "p", {}, {}, {"GPU-006": {
        "gdrdrv_loaded": Expectation("GPU-006", "gdrdrv_loaded", "==", True, "", "S1 'Install GDRCopy'"),
        "waived_tests": Expectation("GPU-006", "waived_tests", "==", 0, "tests", "S1 'Install GDRCopy'"),
    }})

    def run(node: str, command: str, timeout_s: float | None, cached: bool) -> CommandResult:
        return CommandResult(node, command, "", f"bash: {command}: command not found\n", 127, 0.0)

    return CheckContext(load_catalog().get("GPU-006"), "node01", profile, run)


def test_a_failing_fact_stands_when_a_later_part_is_not_measured() -> None:
    gpufabric = _context()
    gpufabric.judge("gdrdrv_loaded", False)
    with gpufabric.part():
        raise MeasurementMissing("node01: gdrcopy_sanity is not installed")
    with pytest.raises(pytest.fail.Exception) as failed:
        gpufabric.settle()
    assert "FAILED at node01" in str(failed.value) and "gdrdrv_loaded = False" in str(failed.value)
    assert "not measured: node01: gdrcopy_sanity is not installed" in str(failed.value)


def test_an_unmeasured_part_beside_facts_that_hold_is_an_error() -> None:
    gpufabric = _context()
    gpufabric.judge("gdrdrv_loaded", True)
    with gpufabric.part():
        raise MeasurementMissing("node01: gdrcopy_sanity is not installed")
    with pytest.raises(MeasurementMissing, match="gdrcopy_sanity is not installed"):
        gpufabric.settle()


def test_expect_each_judges_every_value_on_its_own() -> None:
    gpufabric = _context()
    with pytest.raises(pytest.fail.Exception) as failed:  # None and a name without threshold do not hide the failure
        gpufabric.expect_each([("waived_tests", None, None, ""), ("no_such_value", 1, None, ""),
                               ("gdrdrv_loaded", False, None, "")])
    assert "gdrdrv_loaded = False" in str(failed.value)
    assert str(failed.value).count("not measured:") == 2


def test_expect_each_without_a_failure_reports_every_unmeasured_value() -> None:
    gpufabric = _context()
    with pytest.raises(MeasurementMissing) as missing:
        gpufabric.expect_each([("waived_tests", None, None, ""), ("gdrdrv_loaded", True, None, "")])
    assert "waived_tests could not be measured" in str(missing.value)
    with pytest.raises(ThresholdMissing):  # one unmeasured part keeps its own kind of error
        _context().expect_each([("no_such_value", 1, None, "")])


def test_a_missing_program_is_not_measured_never_judged() -> None:
    from pytest_gpufabric.checks.node_facts import require_tool

    gpufabric = _context()
    with pytest.raises(MeasurementMissing, match=r"`p2pBandwidthLatencyTest`: p2pBandwidthLatencyTest is not installed"):
        require_tool(gpufabric.run("node01", "p2pBandwidthLatencyTest"))
