"""The state and net device of every RDMA port: ``rdma link show``, else ``ibstat`` with ``ibdev2netdev``.

Nodes without iproute2's ``rdma`` often carry infiniband-diags and the NIC vendor's scripts. ``ibstat`` prints the
same port attributes in libibumad's words, translated here to the names ``rdma link show`` uses (both index the
same IBTA state tables); ``ibdev2netdev`` names the net device. When neither answers, the error names ``rdma``.
"""

from __future__ import annotations

from pytest_gpufabric.checks.node_facts import tool_missing, unreadable
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.ibdev2netdev import parse_ibdev2netdev
from pytest_gpufabric.parsers.ibstat import parse_ibstat
from pytest_gpufabric.parsers.rdma import RdmaLink, RdmaLinks, parse_rdma_link

RDMA_LINKS = "rdma link show"
IBSTAT = "ibstat"
IBDEV2NETDEV = "ibdev2netdev"
# libibumad's port state and physical state names -> iproute2 rdma's, index by index of the IBTA tables.
STATE_NAMES = {"Down": "DOWN", "Initializing": "INIT", "Armed": "ARMED", "Active": "ACTIVE"}
PHYSICAL_STATE_NAMES = {
    "Sleep": "SLEEP", "Polling": "POLLING", "Disabled": "DISABLED", "PortConfigurationTraining": "ARMED",
    "LinkUp": "LINK_UP", "LinkErrorRecovery": "LINK_ERROR_RECOVER", "PhyTest": "PHY_TEST",
}  # fmt: skip


def _rdma_name(value: str | None, names: dict[str, str]) -> str | None:
    return None if value is None else names.get(value, value)


def rdma_links(gpufabric: CheckContext, node: str) -> RdmaLinks:
    """Every RDMA port of ``node`` with state, physical state and net device, as ``rdma link show`` gives them."""
    result = gpufabric.run(node, RDMA_LINKS, cached=True)
    if not tool_missing(result):
        return gpufabric.parse(parse_rdma_link, result)
    ports = gpufabric.run(node, IBSTAT, cached=True)
    if ports.exit_code != 0:
        raise unreadable("rdma", ports)
    netdevs = gpufabric.run(node, IBDEV2NETDEV, cached=True)
    if netdevs.exit_code != 0:
        raise unreadable("rdma", netdevs)
    adapters = gpufabric.parse(parse_ibstat, ports)
    mappings = gpufabric.parse(parse_ibdev2netdev, netdevs)
    links = []
    for adapter in adapters.adapters:
        for port in adapter.ports:
            mapping = mappings.get(adapter.name, port.number)
            links.append(RdmaLink(
                device=adapter.name, port=port.number, state=_rdma_name(port.state, STATE_NAMES),
                physical_state=_rdma_name(port.physical_state, PHYSICAL_STATE_NAMES),
                netdev=None if mapping is None else mapping.netdev,
            ))  # fmt: skip
    return RdmaLinks(tuple(links))
