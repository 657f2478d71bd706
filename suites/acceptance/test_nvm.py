"""NVM options of each NIC (catalog NVM-*), read with niccli --getoption (never set)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.niccli import parse_niccli_nvm_option
from pytest_gpufabric.targets import NicTarget

QOS_HINT = "with firmware DCBX/LLDP enabled the RoCE driver does not apply QoS (S0 2.2.3.4, 5.1 FAQ 5); see QOS-006"


def _option(nic: NicTarget, gpufabric: CheckContext, name: str, scoped: bool) -> None:
    words = ["niccli", "--dev", nic.nic.pci, "nvm", "--getoption", name] + (["--scope", "0"] if scoped else [])
    option = gpufabric.parse(parse_niccli_nvm_option, gpufabric.run(nic.node.name, sh(*words)))
    if option.name != name:
        gpufabric.require(None, f"niccli answered {option.name!r} for {name}")
    measured = option.enabled if option.enabled is not None else option.value.split("(")[0].strip()
    gpufabric.expect("enabled" if option.enabled is not None else "value", measured,
                     where=f"{nic.id} ({nic.nic.pci})", detail=f"{name} = {option.value}",
                     hint=QOS_HINT if scoped and name != "support_rdma" else None)


@pytest.mark.check("NVM-001")
def test_support_rdma(nic: NicTarget, gpufabric: CheckContext) -> None:
    _option(nic, gpufabric, "support_rdma", scoped=True)


@pytest.mark.check("NVM-002")
def test_performance_profile(nic: NicTarget, gpufabric: CheckContext) -> None:
    _option(nic, gpufabric, "performance_profile", scoped=False)


@pytest.mark.check("NVM-003")
def test_pcie_relaxed_ordering(nic: NicTarget, gpufabric: CheckContext) -> None:
    _option(nic, gpufabric, "pcie_relaxed_ordering", scoped=False)


@pytest.mark.check("NVM-004")
def test_dcbx_mode(nic: NicTarget, gpufabric: CheckContext) -> None:
    _option(nic, gpufabric, "dcbx_mode", scoped=True)


@pytest.mark.check("NVM-005")
def test_lldp_nearest_bridge(nic: NicTarget, gpufabric: CheckContext) -> None:
    _option(nic, gpufabric, "lldp_nearest_bridge", scoped=True)


@pytest.mark.check("NVM-006")
def test_lldp_nearest_non_tpmr_bridge(nic: NicTarget, gpufabric: CheckContext) -> None:
    _option(nic, gpufabric, "lldp_nearest_non_tpmr_bridge", scoped=True)
