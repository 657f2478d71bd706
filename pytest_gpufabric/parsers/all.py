"""Imports every configuration-check parser module so that the registry lists them all."""

from __future__ import annotations

from pytest_gpufabric.parsers import (
    bnxt_re_conf,
    ethtool,
    ibverbs,
    ip,
    kernel_cmdline,
    lspci,
    niccli,
    pci_path,
    rdma,
    sysctl,
)

MODULES = (bnxt_re_conf, ethtool, ibverbs, ip, kernel_cmdline, lspci, niccli, pci_path, rdma, sysctl)
