"""The IOMMU group of PCI devices: ``grep -H . <dev>/vendor <dev>/iommu_group/type`` for each device.

``/sys/bus/pci/devices/<bdf>/iommu_group`` links the device to ``/sys/kernel/iommu_groups/<grp_id>``, whose
``type`` is the default domain of the group (Linux Documentation/ABI/testing/sysfs-kernel-iommu_groups, since
5.11): ``DMA`` or ``DMA-FQ`` (DMA translated by the IOMMU), ``identity`` (not translated). A device in no group
(no IOMMU, as in a guest without a virtual IOMMU) has no ``iommu_group`` link; its ``vendor`` line says it is
there all the same.
"""

from __future__ import annotations

import re
from typing import Optional

from pytest_gpufabric.parsers.pci_path import normalize_bdf
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "sysfs-iommu-group"
LINE = re.compile(r"^(?:.*/)?(?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/(?P<field>vendor|iommu_group/type):(?P<value>\S+)$")


@parser(TOOL, "grep -H . <dev>/vendor <dev>/iommu_group/type: each present device's IOMMU group type (None: no group)")
def parse_iommu_groups(text: str) -> dict[str, Optional[str]]:
    present: set[str] = set()
    types: dict[str, str] = {}
    for line in clean_lines(TOOL, text):
        if not line.strip():
            continue
        match = LINE.match(line.strip())
        if not match:
            fail(TOOL, f"expected '<device>/vendor:<id>' or '<device>/iommu_group/type:<type>', found {line.strip()[:80]!r}")
        bdf = normalize_bdf(match.group("bdf"))
        if match.group("field") == "vendor":
            present.add(bdf)
        else:
            types[bdf] = match.group("value")
    return {bdf: types.get(bdf) for bdf in sorted(present | set(types))}
