"""Host settings (HOST-*): what the kernel command line says about the IOMMU."""

from __future__ import annotations

from pytest_gpufabric.parsers.kernel_cmdline import KernelCmdline

PASSTHROUGH = "passthrough"
OFF = "off"
TRANSLATED = "translated"


def iommu_mode(cmdline: KernelCmdline) -> str:
    """``off`` when any IOMMU parameter turns it off, ``passthrough`` with ``iommu=pt`` (or
    ``iommu.passthrough=1``), else ``translated`` (the kernel default on AMD and Intel servers)."""
    if OFF in (cmdline.iommu, cmdline.amd_iommu, cmdline.intel_iommu):
        return OFF
    if cmdline.iommu == "pt" or cmdline.get("iommu.passthrough") in ("1", "y", "on"):
        return PASSTHROUGH
    return TRANSLATED


def iommu_evidence(cmdline: KernelCmdline) -> str:
    """The parameters that decided the mode, for the failure message."""
    shown = [f"{k}={v}" for k, v in cmdline.params if k in ("iommu", "amd_iommu", "intel_iommu", "iommu.passthrough")]
    return " ".join(shown) or "no iommu parameter on the kernel command line"
