"""The shape of a machine, as far as a documented value depends on it: how many GPUs, how they are linked to
each other (NVSwitch, NVLink, XGMI or PCIe), and the speed of the NIC a value concerns.

A profile value documented for one shape (S1's ~480 GB/s all_reduce is 8 x H100 behind NVSwitch) is judged
only on machines of that shape; a machine of another shape has no documented value, which is an error naming
the site value to set, never a verdict against a figure for other hardware.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

GPU_LINKS: tuple[str, ...] = ("nvswitch", "nvlink", "xgmi", "pcie")
SHAPE_KEYS: dict[str, type] = {"gpus": int, "gpu_link": str, "nic_gbps": int}
_LINK_WORDS = {"nvswitch": "NVSwitch", "nvlink": "NVLink", "xgmi": "XGMI", "pcie": "PCIe"}


@dataclass(frozen=True)
class MachineShape:
    """What a node (and, for NIC values, its NIC) is: GPU count and model, GPU link, NIC speed (None: unknown)."""

    gpus: int
    gpu_model: str
    gpu_link: str | None = None
    nic_gbps: int | None = None

    def value(self, key: str) -> Any:
        return getattr(self, key)

    def describe(self, keys: tuple[str, ...] = ("gpus", "gpu_link", "nic_gbps")) -> str:
        """``2 x H200 NVSwitch``, ``NIC 200 Gb/s``: the parts of the shape named by ``keys``."""
        parts = []
        if "gpus" in keys or "gpu_link" in keys:
            gpus = f"{self.gpus} x {self.gpu_model}" if "gpus" in keys else self.gpu_model
            link = _LINK_WORDS.get(self.gpu_link or "", "(GPU link not declared: platform.gpu_link)")
            parts.append(f"{gpus} {link}" if "gpu_link" in keys and self.gpus > 1 else gpus)
        if "nic_gbps" in keys:
            parts.append(f"NIC {self.nic_gbps} Gb/s" if self.nic_gbps is not None else "NIC of unknown speed")
        return ", ".join(parts)


def shape_problem(raw: Any) -> str | None:
    """What is wrong with a profile's ``shape`` mapping, or None."""
    if not isinstance(raw, Mapping) or not raw:
        return f"expected a mapping of {', '.join(SHAPE_KEYS)}"
    for key, value in raw.items():
        kind = SHAPE_KEYS.get(str(key))
        if kind is None:
            return f"unknown shape key {key!r} (allowed: {', '.join(SHAPE_KEYS)})"
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"shape.{key} must be {'a number' if kind is int else 'a word'}, got {value!r}"
        if key == "gpu_link" and value not in GPU_LINKS:
            return f"shape.gpu_link must be one of {', '.join(GPU_LINKS)}, got {value!r}"
    return None


def fits(shape: MachineShape, documented: Mapping[str, Any]) -> bool:
    """Whether the machine has every property the documented shape names (an unknown property never fits)."""
    return all(shape.value(key) is not None and shape.value(key) == value for key, value in documented.items())


def describe_documented(documented: Mapping[str, Any]) -> str:
    """``8 GPUs NVSwitch``, ``NIC 400 Gb/s``: a documented shape in words."""
    parts = []
    if "gpus" in documented or "gpu_link" in documented:
        gpus = f"{documented['gpus']} GPUs" if "gpus" in documented else "GPUs"
        link = _LINK_WORDS.get(str(documented.get("gpu_link")), "")
        parts.append(f"{gpus} {link}".strip())
    if "nic_gbps" in documented:
        parts.append(f"NIC {documented['nic_gbps']} Gb/s")
    return ", ".join(parts)


def _nic_speed(target: Any) -> int | None:
    """The speed of the NICs a target concerns: its NIC, both ends of a NIC pair, else every NIC of its nodes
    (a node-pair run over MPI); None where they differ."""
    nic = getattr(target, "nic", None)
    if nic is not None:
        return int(nic.speed_gbps)
    a, b = getattr(target, "nic_a", None), getattr(target, "nic_b", None)
    nics = (a, b) if a is not None and b is not None else tuple(n for node in target.nodes for n in node.nics)
    speeds = {n.speed_gbps for n in nics}
    return int(speeds.pop()) if len(speeds) == 1 else None


def shape_of(target: Any) -> MachineShape | None:
    """The machine shape of an item's target: its first node's GPUs and GPU link, and the NIC it concerns
    (None for a target without node, e.g. a switch)."""
    nodes = getattr(target, "nodes", ())
    if not nodes:
        return None
    node = nodes[0]
    return MachineShape(len(node.gpus), node.platform.gpu_model, node.platform.gpu_link, _nic_speed(target))
