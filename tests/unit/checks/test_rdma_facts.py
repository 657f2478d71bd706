"""RDMA port state and net device: ``rdma link show``, else ``ibstat`` with ``ibdev2netdev`` (real outputs)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.rdma_facts import rdma_links
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


@pytest.mark.parametrize(
    ("answers", "command"),
    [({}, "ibstat"), ({"ibstat": IBSTAT}, "ibdev2netdev")],
    ids=["no-ibstat", "no-ibdev2netdev"],
)
def test_nothing_readable_names_rdma(answers: dict[str, tuple[str, str, int]], command: str) -> None:
    with pytest.raises(MeasurementMissing, match=rf"rdma is not installed \(exit 127\) and `{command}` did not answer"):
        rdma_links(context(answers), "h200")
