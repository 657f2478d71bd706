"""RCCL / NCCL collectives: single node, multi-node over the fabric, GPU direct RDMA, correctness (COLL-001..006)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.applicability import not_applicable
from pytest_gpufabric.checks.collectives import (
    EIGHT_GB,
    SWEEP,
    correctness,
    perf_program,
)
from pytest_gpufabric.checks.mpi import launch_command, launch_plan
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.nccl_debug import (
    channels_without_gdrdma,
    network_channels,
    parse_nccl_debug,
)
from pytest_gpufabric.parsers.nccl_tests import (
    NcclTestsResult,
    busbw_at,
    busbw_at_largest,
    parse_nccl_tests,
)
from pytest_gpufabric.targets import ClusterTarget, NodeTarget

COLLECTIVE_TIMEOUT_S = 3600.0
HOSTFILE = "/tmp/gpufabric-hostfile"


def _single_node(node: NodeTarget, gpufabric: CheckContext, env: tuple[str, ...] = ()) -> NcclTestsResult:
    """all_reduce_perf -b 8 -e 8G -f 2 -g <ngpus> on the node (S4 "Allreduce"; S0 8.5.1)."""
    command = sh(*env, *perf_program("all_reduce", "8", "8G", len(node.node.gpus)))
    return gpufabric.parse(parse_nccl_tests, gpufabric.run(node.node.name, command, timeout_s=COLLECTIVE_TIMEOUT_S, cached=True))


def _multi_node(cluster: ClusterTarget, gpufabric: CheckContext, launcher: str, collective: str, begin: str,
                debug: str | None = None) -> tuple[str, str]:
    """Launch ``collective`` over every node, one rank per GPU (S0 8.7.2); returns (node, stdout)."""
    if len(cluster.nodes) < 2:
        not_applicable("a multi-node collective needs at least two nodes")
    plan = launch_plan(cluster.nodes, len(cluster.nodes[0].gpus), debug)
    command = launch_command(launcher, plan, perf_program(collective, begin, "16G", 1), f"{HOSTFILE}-{collective}")
    result = gpufabric.run(cluster.nodes[0].name, command, timeout_s=COLLECTIVE_TIMEOUT_S, cached=True)
    return result.node, result.stdout


def _correctness_values(result: NcclTestsResult, where: str) -> list[tuple[str, object, str, str]]:
    facts = correctness(result)
    sizes = ", ".join(map(str, facts.wrong_sizes[:5]))
    return [("wrong_sizes", facts.wrong_count, where, f"#wrong > 0 at {sizes}" if sizes else "#wrong 0 at every size")]


@pytest.mark.check("COLL-001")
def test_single_node_all_reduce(node: NodeTarget, gpufabric: CheckContext) -> None:
    result = _single_node(node, gpufabric)
    gpufabric.expect("busbw_8gb_gbs", busbw_at(result, EIGHT_GB), where=node.id, detail="in-place busbw at 8 GB")


@pytest.mark.check("COLL-002")
def test_collective_results_correct(node: NodeTarget, gpufabric: CheckContext) -> None:
    result = _single_node(node, gpufabric)
    facts = correctness(result)
    if not facts.checked:
        pytest.fail(f"COLL-002 at {node.id}: #wrong is N/A (result checking off); run with -c 1", pytrace=False)
    gpufabric.expect_each([*_correctness_values(result, node.id),
                           ("out_of_bounds", facts.out_of_bounds, node.id, f"ok={facts.out_of_bounds_ok}")])


@pytest.mark.check("COLL-003")
def test_multi_node_all_reduce(cluster: ClusterTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    _multi_node(cluster, gpufabric, pytestconfig.getoption("mpi_launcher"), "all_reduce", "8")
    result = gpufabric.parse(parse_nccl_tests, gpufabric.commands[-1])
    size, busbw = busbw_at_largest(result)
    gpufabric.expect_each([("busbw_largest_gbs", busbw, f"{len(cluster.nodes)} nodes", f"in-place busbw at {size} bytes"),
                           *_correctness_values(result, f"{len(cluster.nodes)} nodes")])


@pytest.mark.check("COLL-004")
def test_multi_node_gdrdma(cluster: ClusterTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    _multi_node(cluster, gpufabric, pytestconfig.getoption("mpi_launcher"), "all_reduce", "1G", debug="INFO")
    info = gpufabric.parse(parse_nccl_debug, gpufabric.commands[-1])
    if not network_channels(info):
        pytest.fail("COLL-004: the NCCL_DEBUG=INFO output shows no network channel (NET/...) to judge", pytrace=False)
    plain = channels_without_gdrdma(info)
    detail = "; ".join(f"channel {c.channel} rank {c.source_rank}->{c.target_rank} via {c.transport}" for c in plain[:4])
    gpufabric.expect("non_gdrdma_channels", len(plain), where=f"{len(cluster.nodes)} nodes", detail=detail,
                     hint="channels without GDRDMA: peer memory not loaded (DRV-003) or NCCL_NET_GDR_LEVEL too low (S0 8.7.3.3)")


@pytest.mark.check("COLL-005")
@pytest.mark.parametrize("collective", SWEEP)
def test_collective_sweep(collective: str, cluster: ClusterTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    _multi_node(cluster, gpufabric, pytestconfig.getoption("mpi_launcher"), collective, "1")
    result = gpufabric.parse(parse_nccl_tests, gpufabric.commands[-1])
    where = f"{collective}, {len(cluster.nodes)} nodes"
    values = _correctness_values(result, where)
    name = f"{collective}_busbw_largest_gbs"
    if name in gpufabric.profile.expectations.get("COLL-005", {}):
        size, busbw = busbw_at_largest(result)
        values.append((name, busbw, where, f"in-place busbw at {size} bytes"))
    gpufabric.expect_each(values)


@pytest.mark.check("COLL-006")
def test_single_node_through_nics(node: NodeTarget, gpufabric: CheckContext) -> None:
    result = _single_node(node, gpufabric, env=("env", "RCCL_ENABLE_INTRANET=1"))
    gpufabric.expect_each([("busbw_8gb_gbs", busbw_at(result, EIGHT_GB), node.id, "in-place busbw at 8 GB, RCCL_ENABLE_INTRANET=1"),
                           *_correctness_values(result, node.id)])
