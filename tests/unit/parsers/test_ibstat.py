"""ibstat (infiniband-diags): channel adapters and their ports, RoCE (Ethernet link layer) and InfiniBand."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.ibstat import parse_ibstat


@pytest.mark.parametrize(
    ("name", "adapters", "ca", "ca_type", "rate", "node_guid"),
    [("l2fwd_nv_issue6_cx6dx.txt", ("mlx5_0", "mlx5_1"), "mlx5_1", "MT4125", 100, "0x0c42a103001dd12b"),
     ("pplx_garden_issue2_bonds.txt", ("mlx5_bond_0", "mlx5_bond_1"), "mlx5_bond_0", "MT41692", 200, "0xc470bd0300720dee"),
     ("mooncake_issue1999_cx7.txt", ("mlx5_0", "mlx5_1"), "mlx5_0", "MT4129", 200, "0x58a2e10300dae626")],
    ids=["cx6dx", "bluefield3-bonds", "cx7"],
)
def test_ibstat(output, name: str, adapters: tuple[str, ...], ca: str, ca_type: str, rate: int, node_guid: str) -> None:
    ibstat = parse_ibstat(output("ibstat", name)).facts
    assert tuple(adapter.name for adapter in ibstat.adapters) == adapters
    adapter = ibstat.get(ca)
    port = adapter.port(1)
    assert (adapter.ca_type, adapter.node_guid) == (ca_type, node_guid)
    assert (port.state, port.physical_state, port.rate_gbps, port.link_layer) == ("Active", "LinkUp", rate, "Ethernet")
    assert adapter.port(2) is None and ibstat.get("bnxt_re0") is None


def test_ibstat_excerpt_before_the_first_adapter_is_refused(output, parse_error) -> None:
    parse_error(parse_ibstat, output("ibstat", "gpud_pr752_ibpanic_redacted.txt"), "ibstat", "expected \"CA '<name>'\" first, found '...'")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("CA 'mlx5_7'\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
      "ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory\n",
      "ibstat stopped: ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed"),
     ("CA 'mlx4_0'\n\tNumber of ports: 2\n\tPort 1:\n\t\tState: Down\n", "Number of ports is 2 but 1 port sections"),
     ("CA 'mlx5_0'\n\tPort 1:\n\t\tRate: fast\n", "port 1 Rate: expected an integer, found 'fast'"),
     ("CA 'mlx5_0'\n\tPort 1:\n\t\t-- garbage --\n", "expected 'Key: value', found '-- garbage --'")],
    ids=["ibpanic", "missing-port", "rate-not-a-number", "not-a-field"],
)
def test_malformed_ibstat(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ibstat, text, "ibstat", fragment)
