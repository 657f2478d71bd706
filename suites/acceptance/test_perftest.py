"""RDMA bandwidth and latency with perftest (PERF-001..008), server and client on the documented nodes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_gpufabric.checks.perf import (
    bandwidth_judgements,
    latency_judgements,
    run_concurrent_legs,
    run_leg,
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
from pytest_gpufabric.parsers.perftest import uses_gpu_memory
from pytest_gpufabric.scheduling.plugin import parse_duration
from pytest_gpufabric.targets import NicGpuPairTarget, NicPairTarget, NodePairTarget

SOAK_INTERVAL_S = 60  # PERF-008: one judged ib_write_bw run per minute of the soak


def _bandwidth_pair(nic_pair: NicPairTarget, gpufabric: CheckContext, *, tool: str, flags: tuple[str, ...],
                    gpu_server: bool, gpu_client: bool, cores: tuple[int | None, int | None] = (None, None)) -> None:
    legs = pair_legs(nic_pair.node_a, nic_pair.nic_a, nic_pair.node_b, nic_pair.nic_b, tool=tool, flags=flags,
                     gpu_server=gpu_server, gpu_client=gpu_client, cores=cores)
    outcomes = [run_leg(gpufabric, gpufabric.check.id, nic_pair.id, leg) for leg in legs]
    gpufabric.expect_each([value for outcome in outcomes for value in bandwidth_judgements(outcome)])


@pytest.mark.check("PERF-001")
def test_gpu_to_nic_loopback(nic_gpu_pair: NicGpuPairTarget, gpufabric: CheckContext) -> None:
    leg = loopback_leg(nic_gpu_pair.node, nic_gpu_pair.nic, nic_gpu_pair.gpu.index)
    outcome = run_leg(gpufabric, gpufabric.check.id, nic_gpu_pair.id, leg)
    gpufabric.expect_each([*bandwidth_judgements(outcome),
                           ("gpu_memory_in_use", uses_gpu_memory(outcome.client), leg.label, leg.client.gpu_flag or "")])


@pytest.mark.check("PERF-002")
def test_nic_switch_nic_bandwidth(nic_pair: NicPairTarget, gpufabric: CheckContext) -> None:
    _bandwidth_pair(nic_pair, gpufabric, tool="ib_write_bw", flags=BW_WITH_QPS, gpu_server=False, gpu_client=False)


@pytest.mark.check("PERF-003")
def test_gpu_to_gpu_bandwidth(nic_pair: NicPairTarget, gpufabric: CheckContext) -> None:
    _bandwidth_pair(nic_pair, gpufabric, tool="ib_write_bw", flags=BW_WITH_QPS, gpu_server=True, gpu_client=True)


@pytest.mark.check("PERF-004")
def test_host_to_host_bandwidth(nic_pair: NicPairTarget, gpufabric: CheckContext) -> None:
    cores = []
    for node, nic in ((nic_pair.node_a, nic_pair.nic_a), (nic_pair.node_b, nic_pair.nic_b)):
        cpulist = gpufabric.run(node.name, local_cpulist_command(nic.name), cached=True)
        cores.append(gpufabric.require(first_core(cpulist.stdout), f"a CPU local to {node.name}/{nic.name} (local_cpulist)"))
    _bandwidth_pair(nic_pair, gpufabric, tool="ib_send_bw", flags=("-a", "-F", "-x", "3", "--report_gbits"),
                    gpu_server=False, gpu_client=False, cores=(cores[0], cores[1]))


@pytest.mark.check("PERF-005")
def test_host_device_bandwidth(nic_pair: NicPairTarget, gpufabric: CheckContext) -> None:
    legs = [*pair_legs(nic_pair.node_a, nic_pair.nic_a, nic_pair.node_b, nic_pair.nic_b, tool="ib_write_bw", flags=BW_FLAGS,
                       gpu_server=True, gpu_client=False, both_directions=False),
            *pair_legs(nic_pair.node_a, nic_pair.nic_a, nic_pair.node_b, nic_pair.nic_b, tool="ib_write_bw", flags=BW_FLAGS,
                       gpu_server=False, gpu_client=True, both_directions=False)]
    legs = [replace(legs[0], role="gpu-serves"), replace(legs[1], role="host-serves")]
    outcomes = [run_leg(gpufabric, gpufabric.check.id, nic_pair.id, leg) for leg in legs]
    gpufabric.expect_each([value for outcome in outcomes for value in bandwidth_judgements(outcome)])


@pytest.mark.check("PERF-006")
def test_all_pairs_at_once(node_pair: NodePairTarget, gpufabric: CheckContext) -> None:
    legs = [pair_legs(node_pair.a, nic_a, node_pair.b, nic_b, tool="ib_write_bw", flags=BW_FLAGS, gpu_server=True,
                      gpu_client=True, both_directions=False)[0] for nic_a, nic_b in rail_pairs(node_pair.a, node_pair.b)]
    legs = [replace(leg, role=f"rail{index}") for index, leg in enumerate(legs)]
    outcomes = run_concurrent_legs(gpufabric, gpufabric.check.id, node_pair.id, legs)
    gpufabric.expect_each([value for outcome in outcomes for value in bandwidth_judgements(outcome)])


@pytest.mark.check("PERF-007")
def test_rdma_latency(nic_pair: NicPairTarget, gpufabric: CheckContext) -> None:
    legs = pair_legs(nic_pair.node_a, nic_pair.nic_a, nic_pair.node_b, nic_pair.nic_b, tool="ib_write_lat", flags=LAT_FLAGS,
                     gpu_server=False, gpu_client=False, both_directions=False)
    outcome = run_leg(gpufabric, gpufabric.check.id, nic_pair.id, legs[0])
    gpufabric.expect_each(latency_judgements(outcome))


@pytest.mark.check("PERF-008")
def test_soak(nic_pair: NicPairTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    soak = pytestconfig.getoption("soak")
    if not soak:
        pytest.skip("PERF-008 soak is opt-in: pass --soak=DURATION (S2 documents 8 hours, --soak=8h)")
    intervals = max(1, int(parse_duration(soak) // SOAK_INTERVAL_S))
    values = []
    for index in range(intervals):
        legs = pair_legs(nic_pair.node_a, nic_pair.nic_a, nic_pair.node_b, nic_pair.nic_b, tool="ib_write_bw",
                         flags=("-x", "3", "-b", "-F", "--report_gbits", "-D", str(SOAK_INTERVAL_S)), gpu_server=False,
                         gpu_client=False, both_directions=False)
        leg = replace(legs[0], role=f"soak{index}", label=f"{legs[0].label} interval {index + 1}/{intervals}")
        values += bandwidth_judgements(run_leg(gpufabric, gpufabric.check.id, nic_pair.id, leg))
    gpufabric.expect_each(values)
