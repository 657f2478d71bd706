"""GPUs of each node: inventory, scale-up fabric, NVIDIA fabric manager and CUDA sanity (catalog GPU-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.drivers import missing_modules
from pytest_gpufabric.checks.gpu import bus_mismatches, non_xgmi_pairs, unread_gpu_pairs, weakest_gpu_links
from pytest_gpufabric.checks.node_facts import loaded_modules, require_tool
from pytest_gpufabric.checks.service_facts import service_states
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.parsers.cuda_samples import parse_device_query
from pytest_gpufabric.parsers.gdrcopy import parse_gdrcopy_sanity
from pytest_gpufabric.parsers.nvidia_smi import (
    parse_nvidia_smi_fabric,
    parse_nvidia_smi_nvlink,
    parse_nvidia_smi_query,
    parse_nvidia_smi_topo,
)
from pytest_gpufabric.parsers.rocm_smi import parse_rocm_smi_showbus, parse_rocm_smi_showtopotype
from pytest_gpufabric.targets import GpuTarget, NodeTarget

FABRIC_MANAGER = "nvidia-fabricmanager"


def _amd(node: NodeTarget) -> bool:
    return node.node.platform.gpu_vendor == "amd"


@pytest.mark.check("GPU-001")
def test_gpus_match_inventory(node: NodeTarget, gpufabric: CheckContext) -> None:
    if _amd(node):
        measured = gpufabric.parse(parse_rocm_smi_showbus, gpufabric.run(node.id, "rocm-smi --showbus"))
    else:
        rows = gpufabric.parse(parse_nvidia_smi_query, gpufabric.run(node.id, "nvidia-smi --query-gpu=index,pci.bus_id --format=csv"))
        measured = {row.index: row.bus_id for row in rows if row.index is not None and row.bus_id}
    problems = bus_mismatches({gpu.index: gpu.pci for gpu in node.node.gpus}, measured)
    gpufabric.expect("mismatched_gpus", len(problems), detail="; ".join(problems) or f"{len(measured)} GPUs")


@pytest.mark.check("GPU-002")
def test_gpu_pairs_on_scale_up_fabric(node: NodeTarget, gpufabric: CheckContext) -> None:
    if _amd(node):
        matrix = gpufabric.parse(parse_rocm_smi_showtopotype, gpufabric.run(node.id, "rocm-smi --showtopotype"))
        problems = gpufabric.require(non_xgmi_pairs(matrix), f"the link types of GPU pairs {unread_gpu_pairs(matrix)}")
        gpufabric.expect("non_xgmi_pairs", len(problems), detail="; ".join(problems))
        return
    matrix = gpufabric.parse(parse_nvidia_smi_topo, gpufabric.run(node.id, "nvidia-smi topo -m"))
    weakest, problems = weakest_gpu_links(matrix)
    weakest = gpufabric.require(weakest, f"the links of GPU pairs {unread_gpu_pairs(matrix)}")
    gpufabric.expect("min_nvlinks_per_pair", weakest, detail="; ".join(problems))


@pytest.mark.check("GPU-003")
def test_nvlinks_up(gpu: GpuTarget, gpufabric: CheckContext) -> None:
    gpus = gpufabric.parse(parse_nvidia_smi_nvlink, gpufabric.run(gpu.node.name, "nvidia-smi nvlink -s", cached=True))
    links = gpufabric.require(next((g for g in gpus if g.index == gpu.gpu.index), None), f"GPU {gpu.gpu.index} in nvidia-smi nvlink -s")
    inactive = sorted(n for n, speed in links.links.items() if speed is None)
    speeds = [speed for speed in links.links.values() if speed is not None]
    gpufabric.expect_each([
        ("active_links", len(links.active_links), None, f"inactive links: {inactive}" if inactive else ""),
        ("min_link_speed", min(speeds) if speeds else 0.0, None, ""),
    ])


@pytest.mark.check("GPU-004")
def test_fabric_manager(node: NodeTarget, gpufabric: CheckContext) -> None:
    guest = node.node.platform.deployment == "guest"  # catalog GPU-004 `guest`: the fabric manager may run outside
    seen = ""
    if guest:  # the service is shown beside the fabric state, not judged
        try:
            service = service_states(gpufabric, node.id, (FABRIC_MANAGER,))
            seen = f" (fabric manager in the guest: {service.states[FABRIC_MANAGER]}, {service.source})"
        except GpufabricError as exc:
            seen = f" (fabric manager in the guest not read: {exc})"
    else:
        with gpufabric.part():
            service = service_states(gpufabric, node.id, (FABRIC_MANAGER,))
            gpufabric.judge("service_state", service.states[FABRIC_MANAGER], detail=service.source)
    with gpufabric.part():
        fabrics = gpufabric.parse(parse_nvidia_smi_fabric, gpufabric.run(node.id, "nvidia-smi -q"))
        pending = [f"{f.bus_id}: {f.state}/{f.status}" for f in fabrics if (f.state, f.status) != ("Completed", "Success")]
        gpufabric.judge("gpus_not_trained", len(pending), detail="; ".join(pending) + seen)
    gpufabric.settle()


@pytest.mark.check("GPU-005")
def test_cuda_samples(node: NodeTarget, gpufabric: CheckContext) -> None:
    with gpufabric.part():
        query = gpufabric.parse(parse_device_query, require_tool(gpufabric.run(node.id, "deviceQuery")))
        gpufabric.judge("device_query_passed", query.passed, detail="; ".join(query.errors))
    with gpufabric.part():
        p2p = require_tool(gpufabric.run(node.id, "p2pBandwidthLatencyTest"))
        last = p2p.stdout.strip().splitlines()[-1] if p2p.stdout.strip() else ""
        gpufabric.judge("p2p_test_exit_status", p2p.exit_code, detail=last)
    gpufabric.settle()


@pytest.mark.check("GPU-006")
def test_gdrcopy(node: NodeTarget, gpufabric: CheckContext) -> None:
    with gpufabric.part():
        loaded = not missing_modules(loaded_modules(gpufabric, node.id), ["gdrdrv"])
        gpufabric.judge("gdrdrv_loaded", loaded, detail="loaded modules")
    with gpufabric.part():
        sanity = gpufabric.parse(parse_gdrcopy_sanity, require_tool(gpufabric.run(node.id, "gdrcopy_sanity")))
        gpufabric.judge("tests_neither_passed_nor_waived", sanity.neither_passed_nor_waived, detail=(
            f"total {sanity.total}, passed {sanity.passed}, waived {sanity.waived} ({', '.join(sanity.waived_tests)})"))
        gpufabric.judge("waived_tests", sanity.waived)
    gpufabric.settle()
