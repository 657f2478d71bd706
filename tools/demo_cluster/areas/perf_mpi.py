"""Demo outputs of the multi-node launches: all_reduce over the fabric (COLL-003), its NCCL_DEBUG=INFO channels
(COLL-004), the collective sweep (COLL-005) and OSU latency between node pairs and across a cluster (OSU-001/002).

One launch per cluster item (one GPU vendor each: cluster-amd node01..04, cluster-nvidia node05..06), from
its first node, as the checks run it. Real sample outputs only:
- AMD: S0 8.7.2.2.1 (all_reduce, 4 nodes, 32 processes), S0 8.7.3.3 GDRDMA channel lines, S0 8.7.2.1.1
  (alltoall, 4 nodes, 32 processes);
- NVIDIA: nccl-tests runs on two H200 GPUs (fixtures/outputs/nccl-tests/SOURCES.md) for all_reduce, all_gather,
  alltoall, broadcast, reduce_scatter and sendrecv;
- OSU: the host-loopback captures (fixtures/outputs/osu) with every latency multiplied by OSU_FABRIC_FACTOR,
  shared memory to RoCE between nodes (2 B: 0.11 us -> 2.75 us, below the S3 Table 6 figure of 3.6 us).
Collectives with no real sample output for a vendor (see SWEEP_SAMPLES) are not recorded: those items stay errors.

Injected fault: the nvidia cluster's channels run over NET/IB without GDRDMA (S0 8.7.3.3's non-GDRDMA sample),
consistent with node06's missing nvidia_peermem (DRV-003), so COLL-004 fails there with its documented hint.
"""

from __future__ import annotations

from pytest_gpufabric.checks.collectives import SWEEP, osu_program, perf_program
from pytest_gpufabric.checks.mpi import launch_command, launch_plan
from pytest_gpufabric.targets import targets_for_scope
from tools.demo_cluster.areas.perf_benchmarks import fixture
from tools.demo_cluster.areas.perf_connectivity import demo_inventory
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

LAUNCHER = "mpirun"
HOSTFILE = "/tmp/gpufabric-hostfile"
OSU_HOSTFILE = "/tmp/gpufabric-hostfile-osu"
OSU_FABRIC_FACTOR = 25
ALL_REDUCE = {"amd": "nccl-tests/s0-8.7.2.2.1-rccl-all_reduce-4nodes-32proc-check-off.txt",
              "nvidia": "nccl-tests/h200x2-mpirun-all_reduce_perf-8-4g.txt"}
# The nvidia cluster's failing case (node06 without nvidia_peermem, DRV-003: NET/IB without GDRDMA, the
# s0-8.7.3.3-channels-net-ib-without-gdrdma.txt line) is held back until a failed COLL-004 record carries a
# hint (the check's hint= does not reach results.jsonl and COLL-004 has none in the catalog or hints.yaml).
DEBUG_INFO = {"amd": "nccl-debug/s0-8.7.3.3-channels-gdrdma.txt", "nvidia": "nccl-debug/s0-8.7.3.3-channels-net-ib-without-gdrdma.txt"}
SWEEP_SAMPLES = {
    "amd": {"alltoall": "nccl-tests/s0-8.7.2.1.1-rccl-alltoall-4nodes-32proc-check-off.txt"},
    "nvidia": {"all_gather": "nccl-tests/h200x2-all_gather_perf.txt", "alltoall": "nccl-tests/h200x2-mpirun-alltoall_perf.txt",
               "broadcast": "nccl-tests/h200x2-broadcast_perf.txt",
               "reduce_scatter": "nccl-tests/h200x2-mpirun-reduce_scatter_perf-check-off.txt",
               "sendrecv": "nccl-tests/h200x2-sendrecv_perf.txt"},
}


def osu_over_fabric(name: str) -> str:
    """An OSU loopback capture with every latency column multiplied by OSU_FABRIC_FACTOR."""
    lines = []
    for line in fixture(f"osu/{name}").splitlines():
        words = line.split()
        if len(words) == 2 and words[0].isdigit():
            line = f"{words[0]:<10}{float(words[1]) * OSU_FABRIC_FACTOR:>18.2f}"
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
        for benchmark in ("osu_allreduce", "osu_alltoall"):
            command = launch_command(LAUNCHER, plan, osu_program(benchmark, ("D", "D"), vendor), f"{OSU_HOSTFILE}-{benchmark}")
            outputs[command] = (osu_over_fabric(f"{benchmark}-host-loopback.txt"), 0)
    return outputs


def pair_outputs(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    for pair in targets_for_scope(demo_inventory(), "node_pair"):
        a, b = pair.a, pair.b  # type: ignore[union-attr]
        if a.name != node.name or a.platform.gpu_vendor != b.platform.gpu_vendor:
            continue  # one launch cannot mix GPU vendors
        program = osu_program("osu_latency", ("D", "D"), a.platform.gpu_vendor)
        command = launch_command(LAUNCHER, launch_plan((a, b), 1), program, f"{OSU_HOSTFILE}-{a.name}-{b.name}")
        outputs[command] = (osu_over_fabric("osu_latency-host-loopback.txt"), 0)
    return outputs


def build(node: DemoNode) -> Outputs:
    return {**cluster_outputs(node), **pair_outputs(node)}
