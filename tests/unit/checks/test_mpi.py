"""MPI launch builders: hostfile, -x environment from the inventory (S0 8.7, S1), srun alternative."""

from __future__ import annotations

import shlex
from typing import Any

import pytest

from pytest_gpufabric.checks.collectives import perf_program
from pytest_gpufabric.checks.mpi import (
    hostfile_text,
    launch_command,
    launch_plan,
    nccl_environment,
)
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.inventory import Inventory



@pytest.fixture(scope="module")
def nodes(demo_inventory: Inventory) -> Any:
    return [node for node in demo_inventory.nodes if node.platform.gpu_vendor == "amd"]


def test_environment_from_inventory_and_s0(nodes: Any) -> None:
    env = dict(nccl_environment(nodes))
    assert env["NCCL_IB_HCA"] == ",".join(f"bnxt_re{i}:1" for i in range(8))
    assert env["NCCL_IB_GID_INDEX"] == "3" and env["NCCL_NET_GDR_LEVEL"] == "SYS" and env["NCCL_MIN_NCHANNELS"] == "32"
    assert env["NCCL_SOCKET_IFNAME"].split(",")[0] == nodes[0].nics[0].netdev
    assert dict(nccl_environment(nodes, debug="INFO"))["NCCL_DEBUG"] == "INFO"


def test_mpirun_writes_hostfile_then_launches(nodes: Any) -> None:
    plan = launch_plan(nodes[:2], 8)
    command = launch_command("mpirun", plan, perf_program("all_reduce", "8", "16G", 1), "/tmp/hosts")
    write, launch = command.split(" && ")
    assert shlex.split(write)[2:4] == [f"{nodes[0].address} slots=8", f"{nodes[1].address} slots=8"]
    words = shlex.split(launch)
    assert words[:8] == ["mpirun", "--allow-run-as-root", "--bind-to", "none", "--hostfile", "/tmp/hosts", "-np", "16"]
    assert "NCCL_IB_GID_INDEX=3" in words and words[-9:] == ["all_reduce_perf", "-b", "8", "-e", "16G", "-f", "2", "-g", "1"]
    assert hostfile_text(plan).count("slots=8") == 2


def test_srun_alternative(nodes: Any) -> None:
    words = shlex.split(launch_command("srun", launch_plan(nodes[:2], 8), ("osu_latency",), "/unused"))
    assert words[:3] == ["srun", "--nodes=2", "--ntasks-per-node=8"] and words[4].startswith("--export=ALL,NCCL_IB_HCA=")


def test_bad_inputs_are_usage_errors(nodes: Any) -> None:
    with pytest.raises(UsageError):
        launch_command("pbs", launch_plan(nodes[:2], 8), ("x",), "/tmp/h")
    with pytest.raises(UsageError):
        launch_plan(nodes[:2], 0)
    with pytest.raises(UsageError):
        nccl_environment([])
