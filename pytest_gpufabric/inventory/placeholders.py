"""Placeholder PCIe addresses for interfaces without a PCIe device (veth, the namespace lab's NICs).

The inventory requires a PCIe address for every NIC; such an interface gets one in domain ffff, which no
real host bridge uses, numbered by the NIC's 1-based position in its node (rail order). Discovery and the
namespace lab use this one rule, so a discovered lab site equals the lab's own.
"""

from __future__ import annotations

PLACEHOLDER_PCI_DOMAIN = "ffff"


def placeholder_pci(position: int) -> str:
    """``ffff:<position>:00.0`` for the NIC at ``position`` (1-based, at most 255)."""
    if not 1 <= position <= 0xFF:
        raise ValueError(f"placeholder position {position} outside 1..255")
    return f"{PLACEHOLDER_PCI_DOMAIN}:{position:02x}:00.0"

