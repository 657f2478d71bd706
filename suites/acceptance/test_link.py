"""Link state of the backend NICs (catalog LNK-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.ip import parse_ip_link
from pytest_gpufabric.targets import NicTarget


@pytest.mark.check("LNK-005")
def test_interface_mtu(nic: NicTarget, gpufabric: CheckContext) -> None:
    links = gpufabric.parse(parse_ip_link, gpufabric.run(nic.node.name, sh("ip", "-o", "link", "show", "dev", nic.nic.netdev)))
    link = gpufabric.require(links.get(nic.nic.netdev), f"interface {nic.nic.netdev}")
    gpufabric.expect("mtu", link.mtu, where=f"{nic.id} ({nic.nic.netdev})")
