"""The faults injected into the demo, each a documented failure mode (what a technician would find)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DemoFaults:
    """Where each fault sits: (node name, slot index) or a node name."""

    acs_enabled: tuple[tuple[str, int], ...] = (("node02", 3),)        # PCI-001: BIOS update re-enabled ACS
    iommu_translated: tuple[str, ...] = ("node02",)                   # HOST-001: iommu=pt missing
    numa_balancing_on: tuple[str, ...] = ("node03",)                  # HOST-002: sysctl not persisted
    mtu_1500: tuple[tuple[str, int], ...] = (("node04", 5),)          # LNK-005: netplan without mtu 9000


FAULTS = DemoFaults()
