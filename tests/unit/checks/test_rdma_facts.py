"""RDMA port state and net device: ``rdma link show``, else ``ibstat`` or ``ibstatus`` with ``ibdev2netdev``, else
/sys/class/infiniband (real outputs)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.rdma_facts import SYSFS_LINKS, gid_entry, rdma_links
from pytest_gpufabric.errors import MeasurementMissing
from tests.outputs import read_output
from tests.unit.checks.answering_node import context

# ibstat and ibdev2netdev come from two different hosts here: both name an mlx5_1 on port 1, which is what the
# join of the two outputs needs.
IBSTAT = (read_output("ibstat", "l2fwd_nv_issue6_cx6dx.txt"), "", 0)
IBDEV2NETDEV = (read_output("ibdev2netdev", "stepmesh_issue15_h20.txt"), "", 0)


def test_rdma_link_show_preferred_when_present() -> None:
    gpufabric = context({"rdma link show": (read_output("rdma-link", "s0_eight_links.txt"), "", 0)})
    links = rdma_links(gpufabric, "h200")
    assert len(links.links) == 8
    assert [result.command for result in gpufabric.commands] == ["rdma link show"]


def test_ibstat_and_ibdev2netdev_when_rdma_is_missing() -> None:
    gpufabric = context({"ibstat": IBSTAT, "ibdev2netdev": IBDEV2NETDEV})
    links = rdma_links(gpufabric, "h200")
    link = links.get("mlx5_1")
    assert (link.state, link.physical_state, link.netdev) == ("ACTIVE", "LINK_UP", "ens12f0np0")
    assert links.get("mlx5_0").netdev == "ibs108"
    assert [result.command for result in gpufabric.commands] == ["rdma link show", "ibstat", "ibdev2netdev"]


def test_ibstat_names_of_a_down_port_are_rdma_names() -> None:
    down = "CA 'mlx5_0'\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Disabled\n"
    link = rdma_links(context({"ibstat": (down, "", 0), "ibdev2netdev": IBDEV2NETDEV}), "h200").get("mlx5_0")
    assert (link.state, link.physical_state) == ("DOWN", "DISABLED")


def test_ibstatus_and_ibdev2netdev_when_rdma_and_ibstat_are_missing() -> None:
    ibstatus = (read_output("ibstatus", "nccl_issue1866_two_roce_ports.txt"), "", 0)
    gpufabric = context({"ibstatus": ibstatus, "ibdev2netdev": IBDEV2NETDEV})
    link = rdma_links(gpufabric, "h200").get("mlx5_1")
    assert (link.state, link.physical_state, link.netdev) == ("ACTIVE", "LINK_UP", "ens12f0np0")
    assert [result.command for result in gpufabric.commands] == ["rdma link show", "ibstat", "ibstatus", "ibdev2netdev"]


def test_ibstatus_names_of_down_ports() -> None:
    ibstatus = (read_output("ibstatus", "nccl_issue1935_down_ports_tabs.txt"), "", 0)
    link = rdma_links(context({"ibstatus": ibstatus, "ibdev2netdev": IBDEV2NETDEV}), "h200").get("mlx5_2")
    assert (link.state, link.physical_state) == ("DOWN", "DISABLED")


def test_kernel_files_when_no_tool_is_installed() -> None:
    sysfs = (read_output("sysfs-infiniband", "slurm_appliance_pr988_two_ports.txt"), "", 0)
    gpufabric = context({SYSFS_LINKS: sysfs})
    links = rdma_links(gpufabric, "h200")
    assert [(link.device, link.state, link.physical_state, link.netdev) for link in links.links] == [
        ("mlx5_0", "ACTIVE", "LINK_UP", None), ("mlx5_1", "ACTIVE", "LINK_UP", None)]  # InfiniBand ports: no net device
    assert [result.command for result in gpufabric.commands][-1] == SYSFS_LINKS


def test_kernel_with_no_rdma_device_has_no_links() -> None:
    grep = ("", read_output("sysfs-infiniband", "devhost_no_rdma_device_stderr.txt"), 2)
    assert rdma_links(context({SYSFS_LINKS: grep}), "h200").links == ()


def test_ibdev2netdev_missing_takes_the_net_devices_from_the_kernel_files() -> None:
    sysfs = (read_output("sysfs-infiniband", "slurm_appliance_pr988_two_ports.txt"), "", 0)
    gpufabric = context({"ibstat": IBSTAT, SYSFS_LINKS: sysfs})
    assert rdma_links(gpufabric, "h200").get("mlx5_1").state == "ACTIVE"
    assert [result.command for result in gpufabric.commands] == ["rdma link show", "ibstat", "ibdev2netdev", SYSFS_LINKS]


@pytest.mark.parametrize(
    "answers",
    [{}, {"ibstat": IBSTAT}, {SYSFS_LINKS: ("", "grep: /sys/class/infiniband/mlx5_0/ports/1/state: Permission denied\n", 2)}],
    ids=["no-tool-no-grep", "no-ibdev2netdev-no-grep", "files-unreadable"],
)
def test_nothing_readable_names_rdma(answers: dict[str, tuple[str, str, int]]) -> None:
    with pytest.raises(MeasurementMissing, match=r"rdma is not installed \(exit 127\) and `grep -H \. /sys/class/infiniband"):
        rdma_links(context(answers), "h200")


def test_a_failing_ibstat_names_rdma() -> None:
    with pytest.raises(MeasurementMissing, match=r"rdma is not installed \(exit 127\) and `ibstat` did not answer"):
        rdma_links(context({"ibstat": ("", "ibpanic: [1] main: stat of IB device 'mlx5_8' failed\n", 255)}), "h200")


GIDS = "/sys/class/infiniband/mlx5_4/ports/1"


def test_gid_from_the_kernel_files_first() -> None:
    gpufabric = context({f"cat {GIDS}/gids/5": ("0000:0000:0000:0000:0000:ffff:ac14:0101\n", "", 0),
                         f"cat {GIDS}/gid_attrs/types/5": ("RoCE v2\n", "", 0)})
    entry = gid_entry(gpufabric, "h200", "mlx5_4", 5)
    assert (entry.gid, entry.kind, entry.source) == ("0000:0000:0000:0000:0000:ffff:ac14:0101", "RoCE v2", GIDS)


def test_gid_from_show_gids_where_the_kernel_files_are_missing() -> None:
    gone = ("", f"cat: {GIDS}/gids/5: No such file or directory\n", 1)
    gpufabric = context({f"cat {GIDS}/gids/5": gone, "show_gids": (read_output("show-gids", "multus_issue1100_pod_gids_4_5.txt"), "", 0)})
    entry = gid_entry(gpufabric, "h200", "mlx5_4", 5)
    assert (entry.gid, entry.kind, entry.source) == ("0000:0000:0000:0000:0000:ffff:ac14:0101", "RoCE v2", "show_gids")
    assert gid_entry(gpufabric, "h200", "mlx5_4", 3).gid is None  # not in the pod's table


def test_gid_from_ibv_devinfo_where_show_gids_is_missing_too() -> None:
    devinfo = (read_output("ibv-devinfo", "softroce_issue46_rxe0.txt"), "", 0)  # prints no GID table
    gpufabric = context({"ibv_devinfo -v -d rxe0": devinfo})
    entry = gid_entry(gpufabric, "h200", "rxe0", 3)
    assert (entry.gid, entry.kind, entry.source) == (None, None, "ibv_devinfo -v -d rxe0")


def test_gid_nothing_readable_names_every_source() -> None:
    with pytest.raises(MeasurementMissing, match=r"GID 3 of mlx5_4 port 1 could not be read .*show_gids` exit 127.*ibv_devinfo -v -d mlx5_4` exit 127"):
        gid_entry(context({}), "h200", "mlx5_4", 3)
