"""RDMA bandwidth and latency with perftest (PERF-001..008), server and client on the documented nodes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest

from pytest_gpufabric.checks.perf import (
    Judged,
    PairOutcomes,
    PerftestLeg,
    PerftestOutcome,
    bandwidth_judgements,
    latency_judgements,
    run_concurrent_legs,
    run_leg,
    run_legs,
    run_node_pair_legs,
)
from pytest_gpufabric.checks.perf_commands import (
    BW_FLAGS,
    LAT_FLAGS,
    first_core,
    local_cpulist_command,
)
from pytest_gpufabric.checks.perf_plan import (
    BW_WITH_QPS,
    loopback_leg,
    pair_legs,
    rail_pairs,
)
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.measuring.rails import NodePairMeasure, RailRunner
from pytest_gpufabric.parsers.perftest import uses_gpu_memory
from pytest_gpufabric.scheduling.plugin import parse_duration
from pytest_gpufabric.targets import NicGpuPairTarget, NicPairTarget, NodePairTarget

SOAK_INTERVAL_S = 60  # PERF-008: one judged ib_write_bw run per minute of the soak


def _legs_measure(check_id: str, legs_of: Callable[[NicPairTarget], list[PerftestLeg]]) -> NodePairMeasure[list[PerftestOutcome]]:
    """Measure every NIC pair of a node pair together: each pair's legs one after the other, all rails at once,
    one command per node and step (files named after the NIC pair)."""
    def measure(runner: RailRunner, pairs: Sequence[NicPairTarget]) -> PairOutcomes:
        return run_node_pair_legs(runner, check_id, [(pair.id, legs_of(pair)) for pair in pairs])
    return NodePairMeasure(measure)


def _bandwidth_values(outcomes: list[PerftestOutcome]) -> list[Judged]:
    return [value for outcome in outcomes for value in bandwidth_judgements(outcome)]


def _bandwidth_rails(gpufabric: CheckContext, *, tool: str, flags: tuple[str, ...], gpu_server: bool, gpu_client: bool) -> None:
    """Every rail of the node pair at once, each both directions (S4: then roles swapped)."""
    def legs_of(pair: NicPairTarget) -> list[PerftestLeg]:
        return pair_legs(pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, tool=tool, flags=flags,
                         gpu_server=gpu_server, gpu_client=gpu_client)
    gpufabric.expect_rails(gpufabric.measure_rails(_legs_measure(gpufabric.check.id, legs_of)), _bandwidth_values)


@pytest.mark.check("PERF-001")
def test_gpu_to_nic_loopback(nic_gpu_pair: NicGpuPairTarget, gpufabric: CheckContext) -> None:
    leg = loopback_leg(nic_gpu_pair.node, nic_gpu_pair.nic, nic_gpu_pair.gpu.index)
    outcome = run_leg(gpufabric, gpufabric.check.id, nic_gpu_pair.id, leg)
    gpufabric.expect_each([*bandwidth_judgements(outcome),
                           ("gpu_memory_in_use", uses_gpu_memory(outcome.client), leg.label, leg.client.gpu_flag or "")])


@pytest.mark.check("PERF-002")
def test_nic_switch_nic_bandwidth(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    _bandwidth_rails(gpufabric, tool="ib_write_bw", flags=BW_WITH_QPS, gpu_server=False, gpu_client=False)


@pytest.mark.check("PERF-003")
def test_gpu_to_gpu_bandwidth(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    _bandwidth_rails(gpufabric, tool="ib_write_bw", flags=BW_WITH_QPS, gpu_server=True, gpu_client=True)


@pytest.mark.check("PERF-004")
def test_host_to_host_bandwidth(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    def measure(runner: RailRunner, pair: NicPairTarget) -> list[PerftestOutcome]:
        cores = []
        for node, nic in ((pair.node_a, pair.nic_a), (pair.node_b, pair.nic_b)):
            cpulist = runner.run(node.name, local_cpulist_command(nic.name), cached=True)
            core = first_core(cpulist.stdout)
            if core is None:
                raise MeasurementMissing(f"{pair.id}: a CPU local to {node.name}/{nic.name} (local_cpulist) could not be measured")
            cores.append(core)
        legs = pair_legs(pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, tool="ib_send_bw",
                         flags=("-a", "-F", "-x", "3", "--report_gbits"), gpu_server=False, gpu_client=False,
                         cores=(cores[0], cores[1]))
        return run_legs(runner, gpufabric.check.id, pair.id, legs)
    gpufabric.expect_rails(gpufabric.measure_rails(measure), _bandwidth_values)


@pytest.mark.check("PERF-005")
def test_host_device_bandwidth(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    def legs_of(pair: NicPairTarget) -> list[PerftestLeg]:
        one_way = {"tool": "ib_write_bw", "flags": BW_FLAGS, "both_directions": False}
        gpu_serves = pair_legs(pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, gpu_server=True, gpu_client=False, **one_way)
        host_serves = pair_legs(pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, gpu_server=False, gpu_client=True, **one_way)
        return [replace(gpu_serves[0], role="gpu-serves"), replace(host_serves[0], role="host-serves")]
    gpufabric.expect_rails(gpufabric.measure_rails(_legs_measure(gpufabric.check.id, legs_of)), _bandwidth_values)


@pytest.mark.check("PERF-006")
def test_all_pairs_at_once(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    legs = [pair_legs(node_pair.a, nic_a, node_pair.b, nic_b, tool="ib_write_bw", flags=BW_FLAGS, gpu_server=True,
                      gpu_client=True, both_directions=False)[0] for nic_a, nic_b in rail_pairs(node_pair.a, node_pair.b)]
    legs = [replace(leg, role=f"rail{index}") for index, leg in enumerate(legs)]
    outcomes = run_concurrent_legs(gpufabric, gpufabric.check.id, node_pair.id, legs)
    gpufabric.expect_each([value for outcome in outcomes for value in bandwidth_judgements(outcome)])


@pytest.mark.check("PERF-007")
def test_rdma_latency(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    def legs_of(pair: NicPairTarget) -> list[PerftestLeg]:
        return pair_legs(pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, tool="ib_write_lat", flags=LAT_FLAGS,
                         gpu_server=False, gpu_client=False, both_directions=False)[:1]
    measured = gpufabric.measure_rails(_legs_measure(gpufabric.check.id, legs_of))
    gpufabric.expect_rails(measured, lambda outcomes: [value for outcome in outcomes for value in latency_judgements(outcome)])


@pytest.mark.check("PERF-008")
def test_soak(node_pair: NodePairTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    soak = pytestconfig.getoption("soak")
    if not soak:
        pytest.skip("PERF-008 soak is opt-in: pass --soak=DURATION (S2 documents 8 hours, --soak=8h)")
    intervals = max(1, int(parse_duration(soak) // SOAK_INTERVAL_S))

    def legs_of(pair: NicPairTarget) -> list[PerftestLeg]:
        leg = pair_legs(pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, tool="ib_write_bw",
                        flags=("-x", "3", "-b", "-F", "--report_gbits", "-D", str(SOAK_INTERVAL_S)), gpu_server=False,
                        gpu_client=False, both_directions=False)[0]
        return [replace(leg, role=f"soak{index}", label=f"{leg.label} interval {index + 1}/{intervals}") for index in range(intervals)]
    gpufabric.expect_rails(gpufabric.measure_rails(_legs_measure(gpufabric.check.id, legs_of)), _bandwidth_values)
