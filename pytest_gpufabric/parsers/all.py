"""Imports every configuration-check parser module so that the registry lists them all."""

from __future__ import annotations

from pytest_gpufabric.parsers import (
    bnxt_re_conf,
    cuda_samples,
    dmesg,
    esxcli,
    ethtool,
    gdrcopy,
    ibverbs,
    ip,
    kallsyms,
    kernel_cmdline,
    kmod,
    lspci,
    meminfo,
    niccli,
    nvidia_smi,
    packages,
    pci_path,
    rdma,
    rocm_smi,
    sysctl,
    vmware,
)

MODULES = (
    bnxt_re_conf, cuda_samples, dmesg, esxcli, ethtool, gdrcopy, ibverbs, ip, kallsyms, kernel_cmdline, kmod, lspci, meminfo,
    niccli, nvidia_smi, packages, pci_path, rdma, rocm_smi, sysctl, vmware,
)
