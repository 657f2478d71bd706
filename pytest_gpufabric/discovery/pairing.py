"""NIC <-> GPU pairing from the PCIe tree: the GPU below the NIC's lowest common bridge, never bus order.

S0 1.3: peer-to-peer transfers need the NIC and its GPU below one PCIe switch. A NIC's partner is the GPU
with which it shares the deepest bridge (the lowest common bridge of their sysfs paths); a NIC whose
deepest shared bridge is shared with several GPUs, or with none, stays unpaired and the reason is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pytest_gpufabric.parsers.pci_path import PciDevicePath


@dataclass(frozen=True)
class Pairing:
    """The GPU a NIC is paired with (None: unpaired) and why, in the words of a site.yaml comment."""

    gpu: int | None
    reason: str


def shared_bridges(a: PciDevicePath, b: PciDevicePath) -> tuple[str, ...]:
    """The bridges above both devices, root port first; none when they hang below different root ports."""
    if a.root_bus != b.root_bus:
        return ()
    shared: list[str] = []
    for bridge_a, bridge_b in zip(a.upstream, b.upstream):
        if bridge_a != bridge_b:
            break
        shared.append(bridge_a)
    return tuple(shared)


def _bridge_role(depth: int) -> str:
    return "root port" if depth == 1 else "PCIe switch"


def pair_nic(nic: PciDevicePath | None, gpus: Mapping[int, PciDevicePath]) -> Pairing:
    """The GPU nearest to ``nic`` in the PCIe tree, if exactly one GPU is nearest."""
    if nic is None:
        return Pairing(None, "unpaired: the NIC has no PCIe device path")
    if not gpus:
        return Pairing(None, "unpaired: the node shows no GPU")
    depth = {index: len(shared_bridges(nic, path)) for index, path in gpus.items()}
    deepest = max(depth.values())
    if deepest == 0:
        return Pairing(None, "unpaired: no GPU shares a PCIe bridge with it (peer-to-peer would cross the root complex)")
    nearest = sorted(index for index, d in depth.items() if d == deepest)
    bridge = nic.upstream[deepest - 1]
    if len(nearest) > 1:
        names = ", ".join(f"GPU {index}" for index in nearest)
        return Pairing(None, f"unpaired: {names} are equally near (lowest common bridge {bridge}); pair it by hand")
    return Pairing(nearest[0], f"lowest common bridge {bridge} ({_bridge_role(deepest)})")
