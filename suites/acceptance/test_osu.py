"""OSU micro-benchmarks between node pairs and across the cluster (OSU-001, OSU-002)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.applicability import not_applicable
from pytest_gpufabric.checks.mpi import launch_command, launch_plan
from pytest_gpufabric.checks.osu import COLLECTIVE_SIZE, COLLECTIVES, judged_value, osu_program, point_to_point_runs
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.osu import parse_osu, value_at
from pytest_gpufabric.targets import ClusterTarget, NodePairTarget

OSU_TIMEOUT_S = 1800.0
HOSTFILE = "/tmp/gpufabric-hostfile-osu"


@pytest.mark.check("OSU-001")
def test_osu_point_to_point(node_pair: NodePairTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    vendors = {node_pair.a.platform.gpu_vendor, node_pair.b.platform.gpu_vendor}
    if len(vendors) > 1:
        not_applicable(f"OSU-001 device buffers need one GPU vendor on both ends; {node_pair.id} mixes {'/'.join(sorted(vendors))}")
    launcher, vendor = pytestconfig.getoption("mpi_launcher"), node_pair.a.platform.gpu_vendor
    values = []
    for run in point_to_point_runs():
        plan = launch_plan((node_pair.a, node_pair.b), run.ranks_per_node)
        command = launch_command(launcher, plan, run.program(vendor), f"{HOSTFILE}-{node_pair.a.name}-{node_pair.b.name}")
        with gpufabric.part():  # a run that cannot be measured leaves the others' verdicts standing
            result = gpufabric.parse(parse_osu, gpufabric.run(node_pair.a.name, command, timeout_s=OSU_TIMEOUT_S))
            judged = judged_value(run, result)
            values.append((judged.name, judged.value, f"{node_pair.id} ({run.label})", judged.detail))
    gpufabric.expect_each(values)


@pytest.mark.check("OSU-002")
def test_osu_collectives(cluster: ClusterTarget, gpufabric: CheckContext, pytestconfig: pytest.Config) -> None:
    if len(cluster.nodes) < 2:
        not_applicable("OSU collectives need at least two nodes")
    plan = launch_plan(cluster.nodes, len(cluster.nodes[0].gpus))
    values = []
    for benchmark in COLLECTIVES:
        program = osu_program(benchmark, ("D", "D"), cluster.nodes[0].platform.gpu_vendor)
        command = launch_command(pytestconfig.getoption("mpi_launcher"), plan, program, f"{HOSTFILE}-{benchmark}")
        with gpufabric.part():
            result = gpufabric.parse(parse_osu, gpufabric.run(cluster.nodes[0].name, command, timeout_s=OSU_TIMEOUT_S))
            values.append((f"{benchmark}_latency_us", value_at(result, COLLECTIVE_SIZE), f"{benchmark}, {plan.ranks} ranks",
                           f"{result.label} at {COLLECTIVE_SIZE} bytes"))
    gpufabric.expect_each(values)
