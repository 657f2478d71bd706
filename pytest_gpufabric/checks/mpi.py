"""Launch lines for multi-node runs: Open MPI ``mpirun`` with a hostfile, or Slurm ``srun``; pure builders.

The environment comes from the inventory (NCCL_IB_HCA from the NICs, NCCL_SOCKET_IFNAME from their
interfaces) and from the documented settings: S0 8.7 for RCCL on MI300X + Thor2, S1 for NCCL on HGX in
VMware. Every value is quoted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_gpufabric.commands import sh
from pytest_gpufabric.errors import UsageError

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Node

LAUNCHERS = ("mpirun", "srun")
GID_INDEX = "3"  # S0 8.7, S1: RoCE v2 GID index

# S0 8.7.2 (mpirun lines of the 4-node RCCL tests).
AMD_SETTINGS: tuple[tuple[str, str], ...] = (
    ("NCCL_IB_DISABLE", "0"), ("NCCL_NET_GDR_LEVEL", "SYS"), ("NCCL_NET_GDR_READ", "1"), ("NCCL_P2P_LEVEL", "SYS"),
    ("NCCL_SHM_DISABLE", "1"), ("NCCL_IB_PCI_RELAXED_ORDERING", "1"), ("HSA_FORCE_FINE_GRAIN_PCIE", "1"),
    ("NCCL_DMABUF_ENABLE", "0"), ("NCCL_MIN_NCHANNELS", "32"),
)
# S1 "Multi-node NCCL tests" (mpirun line of the two-VM all_reduce run).
NVIDIA_SETTINGS: tuple[tuple[str, str], ...] = (
    ("NCCL_IB_DISABLE", "0"), ("NCCL_NET_GDR_LEVEL", "1"), ("NCCL_P2P_LEVEL", "NVL"), ("NCCL_P2P_NET_CHUNKSIZE", "262144"),
)
# S0 8.7.2: UCX for point-to-point and one-sided, the named byte-transfer layers off.
MCA = ("--mca", "pml", "ucx", "--mca", "osc", "ucx", "--mca", "spml", "ucx", "--mca", "btl", "^vader,tcp,openib,uct")


@dataclass(frozen=True)
class LaunchPlan:
    """Where the ranks go: one host name/address per node and ``ranks_per_host`` ranks on each."""

    hosts: tuple[str, ...]
    ranks_per_host: int
    environment: tuple[tuple[str, str], ...]

    @property
    def ranks(self) -> int:
        return len(self.hosts) * self.ranks_per_host


def _unique(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))


def nccl_environment(nodes: Sequence[Node], debug: str | None = None) -> tuple[tuple[str, str], ...]:
    """NCCL/RCCL settings for ``nodes``: HCA list (port 1 of every NIC, rail order), GID index 3, socket
    interfaces, and the vendor's documented settings (AMD: S0 8.7; NVIDIA: S1)."""
    if not nodes:
        raise UsageError("a multi-node launch needs at least one node")
    vendors = {node.platform.gpu_vendor for node in nodes}
    if len(vendors) != 1:
        raise UsageError(f"one launch cannot mix GPU vendors {sorted(vendors)}")
    nics = sorted((nic for node in nodes for nic in node.nics), key=lambda nic: (nic.rail, nic.name))
    if not nics:
        raise UsageError("no NICs in the inventory for NCCL_IB_HCA")
    settings = AMD_SETTINGS if "amd" in vendors else NVIDIA_SETTINGS
    environment = [
        ("NCCL_IB_HCA", ",".join(f"{name}:1" for name in _unique([nic.name for nic in nics]))),
        ("NCCL_IB_GID_INDEX", GID_INDEX),
        ("NCCL_SOCKET_IFNAME", ",".join(_unique([nic.netdev for nic in nics]))),
        *settings,
    ]
    if debug is not None:
        environment.append(("NCCL_DEBUG", debug))
    return tuple(environment)


def launch_plan(nodes: Sequence[Node], ranks_per_host: int, debug: str | None = None) -> LaunchPlan:
    if ranks_per_host < 1:
        raise UsageError(f"ranks per host must be at least 1, got {ranks_per_host}")
    return LaunchPlan(tuple(node.address for node in nodes), ranks_per_host, nccl_environment(nodes, debug))


def hostfile_text(plan: LaunchPlan) -> str:
    """Open MPI hostfile (S0 8.7.2: ``host slots=8``)."""
    return "".join(f"{host} slots={plan.ranks_per_host}\n" for host in plan.hosts)


def mpirun_command(plan: LaunchPlan, program: Sequence[str], hostfile: str) -> str:
    """Write the hostfile, then ``mpirun --hostfile`` with one ``-x NAME=VALUE`` per setting (S0 8.7.2)."""
    lines = [f"{host} slots={plan.ranks_per_host}" for host in plan.hosts]
    write = sh("printf", "%s\\n", *lines) + " > " + sh(hostfile)
    words: list[str] = ["mpirun", "--allow-run-as-root", "--bind-to", "none", "--hostfile", hostfile, "-np", str(plan.ranks)]
    for name, value in plan.environment:
        words += ["-x", f"{name}={value}"]
    return f"{write} && {sh(*words, *MCA, *program)}"


def srun_command(plan: LaunchPlan, program: Sequence[str]) -> str:
    """The same launch under Slurm: one task per rank, the settings exported to every task."""
    exports = ",".join(["ALL", *(f"{name}={value}" for name, value in plan.environment)])
    return sh("srun", f"--nodes={len(plan.hosts)}", f"--ntasks-per-node={plan.ranks_per_host}",
              f"--nodelist={','.join(plan.hosts)}", f"--export={exports}", *program)


def launch_command(launcher: str, plan: LaunchPlan, program: Sequence[str], hostfile: str) -> str:
    """Dispatch on the launcher option ("mpirun" or "srun")."""
    if launcher == "mpirun":
        return mpirun_command(plan, program, hostfile)
    if launcher == "srun":
        return srun_command(plan, program)
    raise UsageError(f"unknown MPI launcher {launcher!r}; choose one of {', '.join(LAUNCHERS)}")
