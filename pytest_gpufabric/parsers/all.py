"""Imports every configuration-check parser module so that the registry lists them all."""

from __future__ import annotations

from pytest_gpufabric.parsers import ip, kernel_cmdline, lspci, pci_path, sysctl

MODULES = (ip, kernel_cmdline, lspci, pci_path, sysctl)
