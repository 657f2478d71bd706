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


def test_ibstat_quote_with_redacted_values_and_an_ibpanic(output, unread_line) -> None:
    """A quote that starts with '...', redacts the CA type and GUIDs and ends with ibstat's ibpanic: the adapter
    printed before the panic keeps its port state; the redacted values and the panic are unread."""
    parsed = parse_ibstat(output("ibstat", "gpud_pr752_ibpanic_redacted.txt"))
    port = parsed.facts.get("mlx5_7").port(1)
    assert (port.state, port.physical_state, port.rate_gbps, port.link_layer) == ("Active", "LinkUp", 200, "InfiniBand")
    assert parsed.facts.get("mlx5_7").ca_type is None and port.port_guid is None
    unread_line(parsed, "...", "before any")
    unread_line(parsed, "ibpanic:", "ibstat stopped here")
    unread_line(parsed, "Node GUID: ...", "expected a 0x GUID")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("CA 'mlx5_0'\n\tPort 1:\n\t\tRate: fast\n\t\tState: Active\n", "Rate: expected Gb/s such as 400 or 2.5, found 'fast'"),
     ("CA 'mlx5_0'\n\tPort 1:\n\t\t-- garbage --\n\t\tState: Active\n", "expected 'Key: value'"),
     ("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tState: Down\n", "State given twice")],
    ids=["rate-not-a-number", "not-a-field", "state-twice"],
)
def test_a_malformed_line_costs_only_its_fact(unread_line, text: str, fragment: str) -> None:
    parsed = parse_ibstat(text)
    unread_line(parsed, fragment)
    assert parsed.facts.get("mlx5_0").port(1).state == "Active"


def test_a_cut_adapter_keeps_the_ports_printed() -> None:
    ibstat = parse_ibstat("CA 'mlx4_0'\n\tNumber of ports: 2\n\tPort 1:\n\t\tState: Down\n").facts
    assert ibstat.get("mlx4_0").number_of_ports == 2 and [p.number for p in ibstat.get("mlx4_0").ports] == [1]


def test_a_port_listed_twice_is_read_once(unread_line) -> None:
    parsed = parse_ibstat("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\tPort 1:\n\t\tState: Down\n")
    assert parsed.facts.get("mlx5_0").port(1).state == "Active"
    unread_line(parsed, "State: Down", "listed twice")


def test_only_an_ibpanic_is_refused(parse_error) -> None:
    parse_error(parse_ibstat, "ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory\n",
                "ibstat", "no \"CA '<name>'\" adapter read", "ibpanic")
