"""The state and net device of every RDMA port: ``rdma link show``, else ``ibstat`` or ``ibstatus`` with
``ibdev2netdev``, else the kernel's own ``/sys/class/infiniband`` files; one GID table entry: the kernel's files,
else ``show_gids``, else ``ibv_devinfo -v``.

Nodes without iproute2's ``rdma`` often carry infiniband-diags and the NIC vendor's scripts. ``ibstat`` and
``ibstatus`` print the same port attributes in libibumad's words, translated here to the names ``rdma link show``
uses (all index the same IBTA state tables); ``ibdev2netdev`` names the net device. Where those are missing too,
the port files under ``/sys/class/infiniband`` carry the same facts (the net device is GID 0's). When nothing
answers, the error names ``rdma``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.checks.node_facts import tool_missing, unreadable
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.ibdev2netdev import RdmaNetdevs, parse_ibdev2netdev
from pytest_gpufabric.parsers.ibstat import parse_ibstat
from pytest_gpufabric.parsers.ibstatus import parse_ibstatus
from pytest_gpufabric.parsers.ibverbs import parse_ibv_devinfo
from pytest_gpufabric.parsers.rdma import RdmaLink, RdmaLinks, parse_rdma_link
from pytest_gpufabric.parsers.show_gids import parse_show_gids
from pytest_gpufabric.parsers.sysfs_infiniband import SysfsInfiniband, parse_sysfs_infiniband
from pytest_gpufabric.transport.base import CommandResult

RDMA_LINKS = "rdma link show"
IBSTAT = "ibstat"
IBSTATUS = "ibstatus"
IBDEV2NETDEV = "ibdev2netdev"
SHOW_GIDS = "show_gids"
SYSFS_PORTS = "/sys/class/infiniband/*/ports/*"
SYSFS_LINKS = f"grep -H . {SYSFS_PORTS}/state {SYSFS_PORTS}/phys_state {SYSFS_PORTS}/gid_attrs/ndevs/0"
# libibumad's port state and physical state names -> iproute2 rdma's, index by index of the IBTA tables.
STATE_NAMES = {"Down": "DOWN", "Initializing": "INIT", "Armed": "ARMED", "Active": "ACTIVE"}
PHYSICAL_STATE_NAMES = {
    "Sleep": "SLEEP", "Polling": "POLLING", "Disabled": "DISABLED", "PortConfigurationTraining": "ARMED",
    "LinkUp": "LINK_UP", "LinkErrorRecovery": "LINK_ERROR_RECOVER", "PhyTest": "PHY_TEST",
}  # fmt: skip


def _rdma_name(value: str | None, names: dict[str, str]) -> str | None:
    return None if value is None else names.get(value, value)


def _no_devices(result: CommandResult) -> bool:
    """``grep`` over the unexpanded glob: the kernel has registered no RDMA device (nothing under the class)."""
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    return not result.stdout.strip() and bool(errors) and all(
        "/sys/class/infiniband/*" in line and "No such file or directory" in line for line in errors)


def sysfs_ports(gpufabric: CheckContext, node: str, tool: str) -> SysfsInfiniband:
    """The RDMA ports the kernel lists under /sys/class/infiniband (none when it lists no device); the error
    names ``tool`` when the files cannot be read either. Unreadable single files (an InfiniBand port has no GID
    net device) are left out: grep reports them and goes on."""
    result = gpufabric.run(node, SYSFS_LINKS, cached=True)
    if _no_devices(result):
        return SysfsInfiniband(())
    if not result.stdout.strip():
        raise unreadable(tool, result)
    return gpufabric.parse(parse_sysfs_infiniband, result)


def _from_sysfs(ports: SysfsInfiniband) -> RdmaLinks:
    return RdmaLinks(tuple(
        RdmaLink(port.device, port.port, port.coded("state"),
                 _rdma_name(port.coded("phys_state"), PHYSICAL_STATE_NAMES), port.netdev)
        for port in ports.ports))  # fmt: skip


def _diagnostic_ports(gpufabric: CheckContext, node: str) -> list[tuple[str, int, str | None, str | None]] | None:
    """(device, port, state, physical state) from ``ibstat``, else ``ibstatus``; None when neither is installed."""
    ports = gpufabric.run(node, IBSTAT, cached=True)
    if not tool_missing(ports):
        if ports.exit_code != 0:
            raise unreadable("rdma", ports)
        return [(ca.name, p.number, _rdma_name(p.state, STATE_NAMES), _rdma_name(p.physical_state, PHYSICAL_STATE_NAMES))
                for ca in gpufabric.parse(parse_ibstat, ports).adapters for p in ca.ports]
    status = gpufabric.run(node, IBSTATUS, cached=True)
    if tool_missing(status):
        return None
    if status.exit_code != 0:
        raise unreadable("rdma", status)
    return [(p.device, p.port, p.state, _rdma_name(p.physical_state, PHYSICAL_STATE_NAMES))
            for p in gpufabric.parse(parse_ibstatus, status)]


def _netdevs(gpufabric: CheckContext, node: str) -> RdmaNetdevs | None:
    result = gpufabric.run(node, IBDEV2NETDEV, cached=True)
    if tool_missing(result):
        return None
    if result.exit_code != 0:
        raise unreadable("rdma", result)
    return gpufabric.parse(parse_ibdev2netdev, result)


def rdma_links(gpufabric: CheckContext, node: str) -> RdmaLinks:
    """Every RDMA port of ``node`` with state, physical state and net device, as ``rdma link show`` gives them."""
    result = gpufabric.run(node, RDMA_LINKS, cached=True)
    if not tool_missing(result):
        return gpufabric.parse(parse_rdma_link, result)
    ports = _diagnostic_ports(gpufabric, node)
    netdevs = _netdevs(gpufabric, node) if ports is not None else None
    if ports is None or netdevs is None:
        return _from_sysfs(sysfs_ports(gpufabric, node, "rdma"))
    links = []
    for device, number, state, physical_state in ports:
        mapping = netdevs.get(device, number)
        links.append(RdmaLink(device, number, state, physical_state, None if mapping is None else mapping.netdev))
    return RdmaLinks(tuple(links))


@dataclass(frozen=True)
class GidFact:
    """One GID table entry: the GID as read, its RoCE type (``RoCE v2``), and where it was read."""

    gid: str | None
    kind: str | None
    source: str


def gid_entry(gpufabric: CheckContext, node: str, device: str, index: int, port: int = 1) -> GidFact:
    """GID ``index`` of ``device``/``port``: the kernel's ``gids/<i>`` and ``gid_attrs/types/<i>`` files, else
    ``show_gids``, else ``ibv_devinfo -v`` (where the node's /sys lacks the device, as in some containers).
    A GID that is not populated reads as zeros with no type; nothing readable is an error naming each source."""
    base = f"/sys/class/infiniband/{device}/ports/{port}"
    gid = gpufabric.run(node, sh("cat", f"{base}/gids/{index}"))
    if gid.exit_code == 0:
        kind = gpufabric.run(node, sh("cat", f"{base}/gid_attrs/types/{index}")).stdout.strip()
        return GidFact(gid.stdout.strip() or None, kind or None, base)
    table = gpufabric.run(node, SHOW_GIDS, cached=True)
    if table.exit_code == 0:
        entry = gpufabric.parse(parse_show_gids, table, cached=True).get(device, port, index)
        return GidFact(None, None, SHOW_GIDS) if entry is None else GidFact(entry.gid, entry.roce_type, SHOW_GIDS)
    devinfo = gpufabric.run(node, sh("ibv_devinfo", "-v", "-d", device))
    if devinfo.exit_code == 0:
        found = gpufabric.parse(parse_ibv_devinfo, devinfo).get(device)
        entry = found.port(port).gids.get(index) if found is not None and found.port(port) is not None else None
        return GidFact(None, None, devinfo.command) if entry is None else GidFact(entry.gid, entry.kind, devinfo.command)
    answers = "; ".join(f"`{r.command}` exit {r.exit_code}: {(r.stderr or r.stdout).strip()[:80]!r}" for r in (gid, table, devinfo))
    raise MeasurementMissing(f"{node}: GID {index} of {device} port {port} could not be read ({answers})")
