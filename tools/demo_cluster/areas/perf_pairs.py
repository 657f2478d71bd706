"""Demo outputs of perftest between node pairs: host-to-host ib_send_bw pinned to local cores (PERF-004),
host<->device ib_write_bw (PERF-005), all rails of two nodes at once (PERF-006) and ib_write_lat (PERF-007); the
checks measured per node pair (PERF-005, PERF-007) run all rails together, one command per node and step
(node_pair_runs.py).

Built from real sample outputs: the S0 2.8.2 ib_write_bw output (fixtures/outputs/perftest/
s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt) for ib_write_bw; for ib_send_bw the S0 2.8.2 layout with
the rows of S1 "RDMA test between 2 VMs across 2 hosts" (s1-ib_send_bw-h100-thor2-ocr-damaged.txt; the OCR
splits of the screenshot, "77 .83", are joined). ib_write_lat: the real Soft-RoCE capture
(rxe-ib_write_lat-all-sizes.txt) with the NIC's name, GID index 3 and the NICs' addresses, its rows the demo's
unloaded latency LATENCY_BASE_US (below the S3 Table 6 figure of 3.6 us) plus the transfer time at the S0 2.8.2
average bandwidth of that size, in the capture's columns. CPU lists: cores 0-47,96-143 local to slots 0-3,
48-95,144-191 to 4-7.

Injected fault (the BAD_CABLE of perf_benchmarks): node01/bnxt_re2 <-> node03/bnxt_re2 delivers 30 % of the
sample bandwidth (PERF-004, PERF-005, PERF-006 for node01->node03 rail 2) and its latency is the sample's
divided by that factor (retransmissions, PERF-007).
"""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_gpufabric.checks.perf import PerftestLeg, concurrent_client_command
from pytest_gpufabric.checks.perf_commands import (
    BW_FLAGS,
    LAT_FLAGS,
    client_command,
    local_cpulist_command,
    log_path,
    pid_path,
    server_command,
)
from pytest_gpufabric.checks.perf_plan import pair_legs, rail_pairs
from pytest_gpufabric.targets import NicPairTarget, targets_for_scope
from tools.demo_cluster.areas.perf_benchmarks import (
    BAD_CABLE,
    BAD_CABLE_FACTOR,
    ROW,
    fixture,
    perftest_output,
)
from tools.demo_cluster.node_pair_runs import node_pair_outputs
from tools.demo_cluster.areas.perf_connectivity import demo_inventory
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

CPULISTS = ("0-47,96-143", "48-95,144-191")  # slots 0-3, slots 4-7
LATENCY_BASE_US = 2.9
LATENCY_CAPTURE = "perftest/rxe-ib_write_lat-all-sizes.txt"
S1_ROW = re.compile(r"^(\d+) (\d+) (\S+) (\S+) (\S+)$")
Planned = tuple[str, str, PerftestLeg]  # check id, target id, leg


def _ends(leg: PerftestLeg) -> frozenset[tuple[str, str]]:
    return frozenset({(leg.server_node, leg.server.device), (leg.client_node, leg.client.device)})


def _factor(leg: PerftestLeg) -> float:
    return BAD_CABLE_FACTOR if _ends(leg) == BAD_CABLE else 1.0


def _s0_layout(title: str, device: str) -> tuple[list[str], list[str]]:
    """The S0 2.8.2 lines before and after the table, host memory, with ``title`` and ``device``."""
    lines = perftest_output(device, None, 1.0).splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#bytes"))
    head = [line.replace("RDMA_Write Bidirectional BW Test", title) for line in lines[:start]]
    return head, lines[-1:]


def send_bw_output(device: str, factor: float) -> str:
    """ib_send_bw host memory: S0 2.8.2 layout, rows of the S1 ib_send_bw sample scaled by ``factor``."""
    head, tail = _s0_layout("Send BW Test", device)
    rows = []
    for line in fixture("perftest/s1-ib_send_bw-h100-thor2-ocr-damaged.txt").splitlines():
        match = S1_ROW.match(line.replace(" .", "."))
        if match:
            size, iterations, peak, average, rate = match.groups()
            rows.append(f" {size:<10} {iterations:<15} {float(peak) * factor:<18.2f} {float(average) * factor:<20.2f} {rate}")
    header = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
    return "\n".join([*head, header, *rows, *tail]) + "\n"


def _gid_line(address: str) -> str:
    """perftest's GID line of an IPv4-mapped RoCE v2 GID: the address in decimal, two digits a byte."""
    return " GID: 00:00:00:00:00:00:00:00:00:00:255:255:" + ":".join(f"{int(byte):02d}" for byte in address.split("."))


def write_lat_output(leg: PerftestLeg, factor: float) -> str:
    """ib_write_lat: the real capture's layout for this leg (see the module docstring)."""
    capture = fixture(LATENCY_CAPTURE).splitlines()
    header = next(i for i, line in enumerate(capture) if line.lstrip().startswith("#bytes"))
    gids = iter((_gid_line(leg.client.address), _gid_line(leg.server.address)))
    head = [next(gids) if line.startswith(" GID:") else
            line.replace("rxe_a", leg.client.device).replace("GID index       : 1", "GID index       : 3")
            for line in capture[:header + 1]]
    rows = []
    for line in perftest_output(leg.client.device, None, 1.0).splitlines():
        match = ROW.match(line)
        if match:
            size = int(match.group(1).split()[0])
            typical = (LATENCY_BASE_US + size * 8 / (float(match.group(4)) * 1000)) / factor
            rows.append(f" {size:<7} {1000:<11} {typical * 0.96:<14.2f} {typical * 4.1:<14.2f} {typical:<16.2f} "
                        f"{typical * 1.01:<14.2f} {typical * 0.05:<15.2f} {typical * 1.4:<22.2f} {typical * 3.2:.2f}")
    return "\n".join([*head, *rows, capture[-1]]) + "\n"


def bw_output(leg: PerftestLeg, gpu_flag: str | None) -> str:
    if leg.tool == "ib_send_bw":
        return send_bw_output(leg.client.device, _factor(leg))
    if leg.tool == "ib_write_lat":
        return write_lat_output(leg, _factor(leg))
    return perftest_output(leg.client.device, gpu_flag, _factor(leg))


def _server_log(leg: PerftestLeg) -> str:
    if leg.tool == "ib_write_bw":
        return perftest_output(leg.server.device, leg.server.gpu_flag, _factor(leg))
    return bw_output(replace(leg, client=leg.server), leg.server.gpu_flag)


def _core(slot: int) -> int:
    return int(CPULISTS[0 if slot < 4 else 1].split("-")[0])


def _node_pair_legs(check_id: str, pair: NicPairTarget) -> list[PerftestLeg]:
    """The legs of the checks measured per node pair, all rails together (PERF-005, PERF-007), as the suite builds them."""
    a, na, b, nb = pair.node_a, pair.nic_a, pair.node_b, pair.nic_b
    if check_id == "PERF-007":
        return pair_legs(a, na, b, nb, tool="ib_write_lat", flags=LAT_FLAGS, gpu_server=False, gpu_client=False,
                         both_directions=False)[:1]
    gpu_serves = pair_legs(a, na, b, nb, tool="ib_write_bw", flags=BW_FLAGS, gpu_server=True, gpu_client=False,
                           both_directions=False)[0]
    host_serves = pair_legs(a, na, b, nb, tool="ib_write_bw", flags=BW_FLAGS, gpu_server=False, gpu_client=True,
                            both_directions=False)[0]
    return [replace(gpu_serves, role="gpu-serves"), replace(host_serves, role="host-serves")]


def planned_legs() -> tuple[list[Planned], list[tuple[str, list[PerftestLeg]]]]:
    """Sequential legs of PERF-004 and the concurrent leg groups of PERF-006 (node pair id, legs)."""
    inventory = demo_inventory()
    legs: list[Planned] = []
    for target in targets_for_scope(inventory, "nic_pair"):
        a, na, b, nb = target.node_a, target.nic_a, target.node_b, target.nic_b  # type: ignore[union-attr]
        for leg in pair_legs(a, na, b, nb, tool="ib_send_bw", flags=("-a", "-F", "-x", "3", "--report_gbits"),
                             gpu_server=False, gpu_client=False, cores=(_core(na.rail), _core(nb.rail))):
            legs.append(("PERF-004", target.id, leg))
    groups = []
    for target in targets_for_scope(inventory, "node_pair"):
        a, b = target.a, target.b  # type: ignore[union-attr]
        group = [pair_legs(a, nic_a, b, nic_b, tool="ib_write_bw", flags=BW_FLAGS, gpu_server=True, gpu_client=True,
                           both_directions=False)[0] for nic_a, nic_b in rail_pairs(a, b)]
        groups.append((target.id, [replace(leg, role=f"rail{index}") for index, leg in enumerate(group)]))
    return legs, groups


def _server_steps(node: DemoNode, check_id: str, target_id: str, leg: PerftestLeg, outputs: Outputs) -> None:
    if leg.server_node != node.name:
        return
    pid_file = pid_path(check_id, target_id, leg.role)
    outputs[server_command(leg.tool, leg.server, leg.port, pid_file, leg.flags, leg.extra)] = (_server_log(leg), 0)


def build(node: DemoNode) -> Outputs:
    outputs: Outputs = {}
    inventory = demo_inventory()
    me = inventory.node(node.name)
    for nic in me.nics:
        outputs[local_cpulist_command(nic.name)] = (CPULISTS[0 if nic.rail < 4 else 1] + "\n", 0)
    sequential, groups = planned_legs()
    for check_id, target_id, leg in sequential:
        _server_steps(node, check_id, target_id, leg, outputs)
        if leg.client_node == node.name:
            command = client_command(leg.tool, leg.client, leg.server.address, leg.port, leg.flags, leg.extra)
            outputs[command] = (bw_output(leg, leg.client.gpu_flag), 0)
    for check_id in ("PERF-005", "PERF-007"):
        for target in targets_for_scope(inventory, "node_pair"):
            if node.name in (target.a.name, target.b.name):  # type: ignore[union-attr]
                pairs = [(pair.id, _node_pair_legs(check_id, pair)) for pair in target.rail_pairs()]  # type: ignore[union-attr]
                recorded = node_pair_outputs(check_id, pairs, lambda leg: (_server_log(leg), 0),
                                             lambda leg: (bw_output(leg, leg.client.gpu_flag), 0))
                outputs.update(recorded.get(node.name, {}))
    for target_id, legs in groups:
        for leg in legs:
            _server_steps(node, "PERF-006", target_id, leg, outputs)
        if legs and legs[0].client_node == node.name:
            logs = [log_path("PERF-006", target_id, f"{leg.role}-client") for leg in legs]
            commands = [client_command(leg.tool, leg.client, leg.server.address, leg.port, leg.flags, leg.extra) for leg in legs]
            outputs[concurrent_client_command(commands, logs)] = ("", 0)
            for leg, log in zip(legs, logs):
                outputs[f"cat {log}; rm -f {log}"] = (bw_output(leg, leg.client.gpu_flag), 0)
    return outputs
