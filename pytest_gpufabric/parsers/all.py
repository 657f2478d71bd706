"""Imports every parser module so that the registry (``gpufabric parse --list``) lists them all."""

from __future__ import annotations

from pytest_gpufabric.parsers import (
    amd_smi,
    bnxt_re_conf,
    cuda_samples,
    dmesg,
    eos_config,
    eos_show,
    esxcli,
    ethtool,
    gdrcopy,
    ibdev2netdev,
    ibstat,
    ibverbs,
    ip,
    kallsyms,
    kernel_cmdline,
    kmod,
    lldp,
    lspci,
    meminfo,
    nccl_debug,
    nccl_tests,
    niccli,
    nvidia_smi,
    osu,
    packages,
    pci_link,
    pci_path,
    pcie_bandwidth,
    perftest,
    ping,
    rdma,
    rocm_smi,
    sonic_config_db,
    sonic_show,
    sysctl,
    virt,
    vmware,
)

MODULES = (
    amd_smi, bnxt_re_conf, cuda_samples, dmesg, eos_config, eos_show, esxcli, ethtool, gdrcopy, ibdev2netdev, ibstat, ibverbs,
    ip, kallsyms, kernel_cmdline, kmod, lldp, lspci, meminfo, nccl_debug, nccl_tests, niccli, nvidia_smi, osu, packages, pci_link,
    pci_path, pcie_bandwidth, perftest, ping, rdma, rocm_smi, sonic_config_db, sonic_show, sysctl, virt, vmware,
)
