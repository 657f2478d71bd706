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
from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "sysfs-iommu-group"
LINE = re.compile(r"^(?:.*/)?(?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/(?P<field>vendor|iommu_group/type):(?P<value>\S+)$")


@parser(TOOL, "grep -H . <dev>/vendor <dev>/iommu_group/type: each present device's IOMMU group type (None: no group)")
def parse_iommu_groups(text: str) -> Parsed[dict[str, Optional[str]]]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    present: set[str] = set()
    types: dict[str, str] = {}
    for line in reading.content():
        match = LINE.match(line.stripped)
        if not match:
            reading.unread(line, "expected '<device>/vendor:<id>' or '<device>/iommu_group/type:<type>'")
            continue
        bdf = normalize_bdf(match.group("bdf"))
        if match.group("field") == "vendor":
            present.add(bdf)
        else:
            types[bdf] = match.group("value")
        reading.used(line)
    return reading.done({bdf: types.get(bdf) for bdf in sorted(present | set(types))}, nothing="no '<device>/vendor:' line")
