"""Host settings of each node (catalog HOST-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.host import iommu_evidence, iommu_mode
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.kernel_cmdline import parse_kernel_cmdline
from pytest_gpufabric.parsers.sysctl import parse_proc_sys_int
from pytest_gpufabric.targets import NodeTarget


@pytest.mark.check("HOST-001")
def test_iommu_disabled_or_passthrough(node: NodeTarget, gpufabric: CheckContext) -> None:
    cmdline = gpufabric.parse(parse_kernel_cmdline, gpufabric.run(node.id, "cat /proc/cmdline", cached=True))
    gpufabric.expect("iommu_mode", iommu_mode(cmdline), detail=iommu_evidence(cmdline))


@pytest.mark.check("HOST-002")
def test_numa_balancing_disabled(node: NodeTarget, gpufabric: CheckContext) -> None:
    value = gpufabric.parse(parse_proc_sys_int, gpufabric.run(node.id, "cat /proc/sys/kernel/numa_balancing"))
    gpufabric.expect("numa_balancing", value)
