"""ibdev2netdev: RDMA device/port to net device, as printed plain and through ``column -t``."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.ibdev2netdev import parse_ibdev2netdev


@pytest.mark.parametrize(
    ("name", "count", "device", "netdev", "up"),
    [("stepmesh_issue15_h20.txt", 7, "mlx5_bond_0", "bond0", True),
     ("imbue_issue4_column_t.txt", 12, "mlx5_10", "ibp204s0", False)],
    ids=["plain", "column-t"],
)
def test_ibdev2netdev(output, name: str, count: int, device: str, netdev: str, up: bool) -> None:
    mappings = parse_ibdev2netdev(output("ibdev2netdev", name)).facts
    assert len(mappings.mappings) == count
    mapping = mappings.get(device)
    assert (mapping.netdev, mapping.port, mapping.netdev_up) == (netdev, 1, up)
    assert mappings.get(device, port=2) is None


def test_ibdev2netdev_up_and_down_of_one_output(output) -> None:
    mappings = parse_ibdev2netdev(output("ibdev2netdev", "stepmesh_issue15_h20.txt")).facts
    assert [m.device for m in mappings.mappings if m.netdev_up] == ["mlx5_1", "mlx5_2", "mlx5_bond_0"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("bash: ibdev2netdev: command not found\n", "expected '<device> port <n> ==> <netdev> (Up|Down)'"),
     ("mlx5_0 port 1 ==> ens3np0 (Unknown)\n", "expected state Up or Down, found 'Unknown'"),
     ("mlx5_0 port 1 ==> ens3np0\n", "'mlx5_0 port 1 ==> ens3np0'")],
    ids=["not-installed", "unknown-state", "no-state"],
)
def test_malformed_ibdev2netdev(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ibdev2netdev, text, "ibdev2netdev", fragment)


def test_a_separator_line_costs_only_itself(unread_line) -> None:
    parsed = parse_ibdev2netdev("------------------------------------\nmlx5_0 port 1 ==> enp94s0f0np0 (Down)\n")
    assert [(m.device, m.netdev) for m in parsed.facts.mappings] == [("mlx5_0", "enp94s0f0np0")]
    unread_line(parsed, "-----", "expected '<device> port <n>")
