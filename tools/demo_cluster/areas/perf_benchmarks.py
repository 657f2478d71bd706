"""Demo outputs of perftest (PERF-001..003) and single-node RCCL collectives (COLL-001, COLL-002, COLL-006).

Built from real sample outputs: perftest from S0 2.8.2 (fixtures/outputs/perftest/
s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt) and S0 5.1 FAQ 2 ("Failed status 12"); single-node
all_reduce from S0 8.5.1 (fixtures/outputs/nccl-tests). Node pairs (PERF-004..007) are in perf_pairs.py,
multi-node launches (COLL-003..005, OSU) in perf_mpi.py. Every perftest leg gets the full sequence the checks
run: background server (PID, once listening), client, server log (the server stopped).

Injected faults:
- BAD_CABLE: node01/bnxt_re2 <-> node03/bnxt_re2 delivers 30 % of the sample bandwidth in both directions
  (PERF-002 and PERF-003 fail for this pair only: localization names the link);
- STATUS_12: node02/bnxt_re6 <-> node04/bnxt_re6, the run with node04 as server fails with "Failed status 12"
  (PERF-002), the documented symptom of RoCE packets dropped in the network;
- WRONG_RESULTS: node03's single-node all_reduce reports #wrong 1024 at 1 MB (COLL-002, COLL-006).
"""

from __future__ import annotations

import re

from pytest_gpufabric.checks.collectives import perf_program
from pytest_gpufabric.checks.perf import PerftestLeg
from pytest_gpufabric.checks.perf_commands import (
    client_command,
    pid_path,
    server_command,
)
from pytest_gpufabric.checks.perf_plan import BW_WITH_QPS, loopback_leg, pair_legs
from pytest_gpufabric.commands import sh
from pytest_gpufabric.targets import targets_for_scope
from tools.demo_cluster.areas.perf_connectivity import REPO, demo_inventory
from tools.demo_cluster.node_pair_runs import node_pair_outputs
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

FIXTURES = REPO / "fixtures" / "outputs"
BAD_CABLE = frozenset({("node01", "bnxt_re2"), ("node03", "bnxt_re2")})
BAD_CABLE_FACTOR = 0.3
STATUS_12 = (frozenset({("node02", "bnxt_re6"), ("node04", "bnxt_re6")}), "node04")
WRONG_RESULTS = {"node03"}
ROW = re.compile(r"^(\s*\d+\s+\d+\s+)(\S+)(\s+)(\S+)(\s+\S+\s*)$")


def fixture(relative: str) -> str:
    return (FIXTURES / relative).read_text(encoding="utf-8")


def perftest_output(device: str, gpu_flag: str | None, factor: float) -> str:
    """The S0 2.8.2 output for ``device``; GPU lines only with a GPU flag; bandwidth columns scaled by ``factor``."""
    lines = fixture("perftest/s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt").splitlines()
    out = []
    for line in lines:
        if gpu_flag is None and (line.startswith(("Using ROCm", "gfx942", "allocated", "deallocating")) or "Use ROCm memory" in line):
            continue
        if gpu_flag is not None and line.startswith("Using ROCm Device"):
            line = line.replace("ID: 4", f"ID: {gpu_flag.split('=')[1]}")
        line = line.replace("Device         : bnxt_re4", f"Device         : {device}")
        match = ROW.match(line)
        if match and factor != 1.0:
            peak, average = float(match.group(2)) * factor, float(match.group(4)) * factor
            line = f"{match.group(1)}{peak:.2f}{match.group(3)}{average:.2f}{match.group(5)}"
        out.append(line)
    return "\n".join(out) + "\n"


def status_12_output(device: str) -> str:
    return fixture("perftest/s0-5.1-faq2-ib_write_bw-failed-status-12.txt").replace("roceo3811", device)


def _loopback_legs() -> list[tuple[str, PerftestLeg]]:
    """(target id, leg) of every demo PERF-001 leg, in a fixed order."""
    inventory = demo_inventory()
    return [(target.id, loopback_leg(target.node, target.nic, target.gpu.index))  # type: ignore[union-attr]
            for target in targets_for_scope(inventory, "nic_gpu_pair")]


def _ends(leg: PerftestLeg) -> frozenset[tuple[str, str]]:
    return frozenset({(leg.server_node, leg.server.device), (leg.client_node, leg.client.device)})


def _factor(leg: PerftestLeg) -> float:
    return BAD_CABLE_FACTOR if _ends(leg) == BAD_CABLE else 1.0


def _client_output(check_id: str, leg: PerftestLeg) -> tuple[str, int]:
    if check_id == "PERF-002" and _ends(leg) == STATUS_12[0] and leg.server_node == STATUS_12[1]:
        return status_12_output(leg.client.device), 1
    return perftest_output(leg.client.device, leg.client.gpu_flag, _factor(leg)), 0


def perftest_outputs(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    for target_id, leg in _loopback_legs():
        if leg.server_node == node.name:
            pid_file = pid_path("PERF-001", target_id, leg.role)
            command = server_command(leg.tool, leg.server, leg.port, pid_file, leg.flags, leg.extra)
            outputs[command] = (perftest_output(leg.server.device, leg.server.gpu_flag, _factor(leg)), 0)
        if leg.client_node == node.name:
            command = client_command(leg.tool, leg.client, leg.server.address, leg.port, leg.flags, leg.extra)
            outputs[command] = _client_output("PERF-001", leg)
    for check_id, gpu in (("PERF-002", False), ("PERF-003", True)):
        for target in targets_for_scope(demo_inventory(), "node_pair"):
            if node.name not in (target.a.name, target.b.name):  # type: ignore[union-attr]
                continue
            pairs = [(pair.id, pair_legs(pair.node_a, pair.nic_a, pair.node_b, pair.nic_b, tool="ib_write_bw",
                                         flags=BW_WITH_QPS, gpu_server=gpu, gpu_client=gpu))
                     for pair in target.rail_pairs()]  # type: ignore[union-attr]
            recorded = node_pair_outputs(
                check_id, pairs, lambda leg: (perftest_output(leg.server.device, leg.server.gpu_flag, _factor(leg)), 0),
                lambda leg, check_id=check_id: _client_output(check_id, leg))  # type: ignore[misc]
            outputs.update(recorded.get(node.name, {}))
    return outputs


def single_node_all_reduce(node: DemoNode) -> str:
    text = fixture("nccl-tests/s0-8.5.1-rccl-all_reduce-1node-8gpu.txt")
    if node.name in WRONG_RESULTS:
        lines = text.splitlines()
        for index, line in enumerate(lines):
            if line.split()[:1] == ["1048576"]:
                lines[index] = re.sub(r"(\s)0(\s*)$", r"\g<1>1024\2", line)  # in-place #wrong of the 1 MB row
        text = "\n".join(lines) + "\n"
    return text


def collective_outputs(node: DemoNode) -> Outputs:
    inventory = demo_inventory()
    gpus = len(inventory.node(node.name).gpus)
    text = single_node_all_reduce(node)
    program = perf_program("all_reduce", "8", "8G", gpus)
    outputs: Outputs = {sh(*program): (text, 0), sh("env", "RCCL_ENABLE_INTRANET=1", *program): (text, 0)}
    return outputs


def build(node: DemoNode) -> Outputs:
    return {**perftest_outputs(node), **collective_outputs(node)}



