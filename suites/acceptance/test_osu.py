"""OSU micro-benchmarks between node pairs and across the cluster (OSU-001, OSU-002)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.collectives import osu_program
from pytest_gpufabric.checks.mpi import launch_command, launch_plan
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.osu import parse_osu, value_at
from pytest_gpufabric.targets import ClusterTarget, NodePairTarget

OSU_TIMEOUT_S = 1800.0
HOSTFILE = "/tmp/gpufabric-hostfile-osu"
LATENCY_SIZE = 2  # S3 Table 6: unloaded latency at 2 bytes
COLLECTIVE_SIZE = 65536  # S3 Table 6: 64K message


@pytest.mark.check("OSU-001")
def test_osu_point_to_point(node_pair: NodePairTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    vendors = {node_pair.a.platform.gpu_vendor, node_pair.b.platform.gpu_vendor}
    if len(vendors) > 1:
        pytest.skip(f"OSU-001 device-to-device needs one GPU vendor on both ends; {node_pair.id} mixes {'/'.join(sorted(vendors))}")
    plan = launch_plan((node_pair.a, node_pair.b), 1)
    program = osu_program("osu_latency", ("D", "D"), node_pair.a.platform.gpu_vendor)
    command = launch_command(pytestconfig.getoption("mpi_launcher"), plan, program, f"{HOSTFILE}-{node_pair.a.name}-{node_pair.b.name}")
    result = gpufabric.parse(parse_osu, gpufabric.run(node_pair.a.name, command, timeout_s=OSU_TIMEOUT_S))
    gpufabric.expect("osu_latency_us", value_at(result, LATENCY_SIZE), where=f"{node_pair.id} (D D)",
                     detail=f"{result.label} at {LATENCY_SIZE} bytes")


@pytest.mark.check("OSU-002")
def test_osu_collectives(cluster: ClusterTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    if len(cluster.nodes) < 2:
        pytest.skip("OSU collectives need at least two nodes")
    plan = launch_plan(cluster.nodes, len(cluster.nodes[0].gpus))
    values = []
    for benchmark in ("osu_allreduce", "osu_alltoall"):
        program = osu_program(benchmark, ("D", "D"), cluster.nodes[0].platform.gpu_vendor)
        command = launch_command(pytestconfig.getoption("mpi_launcher"), plan, program, f"{HOSTFILE}-{benchmark}")
        result = gpufabric.parse(parse_osu, gpufabric.run(cluster.nodes[0].name, command, timeout_s=OSU_TIMEOUT_S))
        values.append((f"{benchmark}_latency_us", value_at(result, COLLECTIVE_SIZE), f"{benchmark}, {plan.ranks} ranks",
                       f"{result.label} at {COLLECTIVE_SIZE} bytes"))
    gpufabric.expect_each(values)
