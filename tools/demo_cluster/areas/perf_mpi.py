"""Demo outputs of the multi-node launches: all_reduce over the fabric (COLL-003), its NCCL_DEBUG=INFO channels
(COLL-004), the collective sweep (COLL-005) and OSU between node pairs and across a cluster (OSU-001/002).

One launch per cluster item (one GPU vendor each: cluster-amd node01..04, cluster-nvidia node05..06), from
its first node, as the checks run it. Real sample outputs only:
- AMD: S0 8.7.2.2.1 (all_reduce, 4 nodes, 32 processes), S0 8.7.3.3 GDRDMA channel lines, S0 8.7.2.1.1
  (alltoall, 4 nodes, 32 processes);
- NVIDIA: nccl-tests runs on two H200 GPUs (fixtures/outputs/nccl-tests/SOURCES.md) for all_reduce and every
  collective of the sweep;
- OSU: the host-loopback captures (fixtures/outputs/osu) with every value multiplied by the benchmark's factor in
  OSU_DEMO (shared memory on one host -> RoCE between nodes): latency x25 (2 B: 0.11 us -> 2.75 us, below the
  S3 Table 6 figure of 3.6 us), point-to-point bandwidth x1.25 (peak 391 Gb/s), and the 64-pair osu_mbw_mr x2.1
  (823 Gb/s at 64 KB, above S3's 792).
The vendor documents show rccl-tests output for all_reduce and alltoall only, so the other collectives of the
AMD sweep are not recorded: those items end as errors ("no recorded command"), as a missing measurement must.

Injected fault: the nvidia cluster's channels run over NET/IB without GDRDMA (S0 8.7.3.3's non-GDRDMA sample),
consistent with node06's missing nvidia_peermem (DRV-003), so COLL-004 fails there with its documented hint.
"""

from __future__ import annotations

from pytest_gpufabric.checks.collectives import SWEEP, perf_program
from pytest_gpufabric.checks.mpi import launch_command, launch_plan
from pytest_gpufabric.checks.osu import COLLECTIVES, osu_program, point_to_point_runs
from pytest_gpufabric.targets import targets_for_scope
from tools.demo_cluster.areas.perf_benchmarks import fixture
from tools.demo_cluster.areas.perf_connectivity import demo_inventory
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

LAUNCHER = "mpirun"
HOSTFILE = "/tmp/gpufabric-hostfile"
OSU_HOSTFILE = "/tmp/gpufabric-hostfile-osu"
# benchmark: (host-loopback capture, factor applied to every value)
OSU_DEMO = {"osu_latency": ("osu_latency-host-loopback.txt", 25.0), "osu_bw": ("osu_bw-host-loopback.txt", 1.25),
            "osu_bibw": ("osu_bibw-host-loopback.txt", 1.25), "osu_mbw_mr": ("osu_mbw_mr-64-pairs-64k-host-loopback.txt", 2.1),
            "osu_allreduce": ("osu_allreduce-host-loopback.txt", 25.0), "osu_alltoall": ("osu_alltoall-host-loopback.txt", 25.0)}
ALL_REDUCE = {"amd": "nccl-tests/s0-8.7.2.2.1-rccl-all_reduce-4nodes-32proc-check-off.txt",
              "nvidia": "nccl-tests/h200x2-mpirun-all_reduce_perf-8-4g.txt"}
# The nvidia cluster's failing case (node06 without nvidia_peermem, DRV-003: NET/IB without GDRDMA, the
# s0-8.7.3.3-channels-net-ib-without-gdrdma.txt line) is held back until a failed COLL-004 record carries a
# hint (the check's hint= does not reach results.jsonl and COLL-004 has none in the catalog or hints.yaml).
DEBUG_INFO = {"amd": "nccl-debug/s0-8.7.3.3-channels-gdrdma.txt", "nvidia": "nccl-debug/s0-8.7.3.3-channels-net-ib-without-gdrdma.txt"}
SWEEP_SAMPLES = {
    "amd": {"alltoall": "nccl-tests/s0-8.7.2.1.1-rccl-alltoall-4nodes-32proc-check-off.txt"},
    "nvidia": {"all_gather": "nccl-tests/h200x2-all_gather_perf.txt", "alltoall": "nccl-tests/h200x2-mpirun-alltoall_perf.txt",
               "alltoallv": "nccl-tests/h200x2-mpirun-alltoallv_perf.txt", "broadcast": "nccl-tests/h200x2-broadcast_perf.txt",
               "gather": "nccl-tests/h200x2-mpirun-gather_perf.txt", "reduce": "nccl-tests/h200x2-mpirun-reduce_perf.txt",
               "reduce_scatter": "nccl-tests/h200x2-mpirun-reduce_scatter_perf-check-off.txt",
               "scatter": "nccl-tests/h200x2-mpirun-scatter_perf.txt", "sendrecv": "nccl-tests/h200x2-sendrecv_perf.txt"},
}


def osu_over_fabric(benchmark: str) -> str:
    """The benchmark's loopback capture with every value multiplied by its OSU_DEMO factor."""
    name, factor = OSU_DEMO[benchmark]
    lines = []
    for line in fixture(f"osu/{name}").splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].isdigit():
            line = f"{words[0]:<10}" + "".join(f"{float(word) * factor:>18.2f}" for word in words[1:])
        lines.append(line)
    return "\n".join(lines) + "\n"


def cluster_outputs(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    for cluster in targets_for_scope(demo_inventory(), "cluster"):
        nodes = cluster.nodes
        if len(nodes) < 2 or nodes[0].name != node.name:
            continue
        vendor = nodes[0].platform.gpu_vendor
        plan, debug_plan = launch_plan(nodes, len(nodes[0].gpus)), launch_plan(nodes, len(nodes[0].gpus), "INFO")
        outputs[launch_command(LAUNCHER, plan, perf_program("all_reduce", "8", "16G", 1), f"{HOSTFILE}-all_reduce")] = (
            fixture(ALL_REDUCE[vendor]), 0)
        if vendor in DEBUG_INFO:
            command = launch_command(LAUNCHER, debug_plan, perf_program("all_reduce", "1G", "16G", 1), f"{HOSTFILE}-all_reduce")
            outputs[command] = (fixture(DEBUG_INFO[vendor]), 0)
        for collective in SWEEP:
            sample = SWEEP_SAMPLES[vendor].get(collective)
            if sample is not None:
                command = launch_command(LAUNCHER, plan, perf_program(collective, "1", "16G", 1), f"{HOSTFILE}-{collective}")
                outputs[command] = (fixture(sample), 0)
        for benchmark in COLLECTIVES:
            command = launch_command(LAUNCHER, plan, osu_program(benchmark, ("D", "D"), vendor), f"{OSU_HOSTFILE}-{benchmark}")
            outputs[command] = (osu_over_fabric(benchmark), 0)
    return outputs


def pair_outputs(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    for pair in targets_for_scope(demo_inventory(), "node_pair"):
        a, b = pair.a, pair.b  # type: ignore[union-attr]
        if a.name != node.name or a.platform.gpu_vendor != b.platform.gpu_vendor:
            continue  # one launch cannot mix GPU vendors
        for run in point_to_point_runs():
            program = run.program(a.platform.gpu_vendor)
            command = launch_command(LAUNCHER, launch_plan((a, b), run.ranks_per_node), program,
                                     f"{OSU_HOSTFILE}-{a.name}-{b.name}")
            outputs[command] = (osu_over_fabric(run.benchmark), 0)
    return outputs


def build(node: DemoNode) -> Outputs:
    return {**cluster_outputs(node), **pair_outputs(node)}
