"""Scheduling wiring: pair policy option, resources per item, rounds vs lower bound at 64 nodes x 8 rails."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.scheduling import group_in_rounds, rail_rounds
from pytest_gpufabric.scheduling.pair_option import (
    parse_pair_policy,
    read_pair_list,
    rounds_summary,
    selected_node_pairs,
)
from pytest_gpufabric.scheduling.plugin import parse_duration
from pytest_gpufabric.exclusive.names import resources_of
from pytest_gpufabric.targets import targets_for_scope



@pytest.fixture(scope="module")
def inventory(demo_inventory: Inventory) -> Inventory:
    return demo_inventory


def test_policy_parsing() -> None:
    assert parse_pair_policy("rounds:2").rounds == 2 and parse_pair_policy("list:p.txt").path == Path("p.txt")
    for bad in ("rounds:0", "rounds:x", "some", "list:"):
        with pytest.raises(UsageError):
            parse_pair_policy(bad)
    assert read_pair_list("a b\n# c\nc->d\ne,f\n", "f") == [("a", "b"), ("c", "d"), ("e", "f")]
    with pytest.raises(UsageError):
        read_pair_list("a b c\n", "f")


def test_policies_select_deterministic_pairs(inventory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    count = len(inventory.nodes)
    every = selected_node_pairs(parse_pair_policy("all"), inventory)
    assert len(every) == count * (count - 1) // 2 and every == selected_node_pairs(parse_pair_policy("all"), inventory)
    assert len(selected_node_pairs(parse_pair_policy("rounds:1"), inventory)) == count // 2
    listed = tmp_path / "pairs.txt"
    listed.write_text("node01 node03\n")
    assert selected_node_pairs(parse_pair_policy(f"list:{listed}"), inventory) == [("node01", "node03")]
    assert rounds_summary(every, count) == (count - 1 if count % 2 == 0 else count, count - 1 if count % 2 == 0 else count)


def test_resources_of_items(inventory) -> None:  # type: ignore[no-untyped-def]
    pair = targets_for_scope(inventory, "nic_pair")[0]
    names = resources_of("PERF-002", pair)
    assert f"nic:{pair.node_a.name}/{pair.nic_a.name}" in names and f"port:{pair.node_b.name}/18516" in names
    assert resources_of("HOST-008", targets_for_scope(inventory, "node_pair")[0]) == ()
    target = targets_for_scope(inventory, "cluster")[0]
    cluster = resources_of("COLL-003", target)
    assert sum(name.startswith("nic:") for name in cluster) == sum(len(node.nics) for node in target.nodes)


def test_64_nodes_8_rails_meet_the_lower_bound() -> None:
    nodes = [f"n{i:02d}" for i in range(64)]
    rounds = rail_rounds(nodes, range(8))
    items = [pair for one_round in rounds for pair in one_round]
    assert len(items) == 64 * 63 // 2 * 8
    assert len(group_in_rounds(items, lambda pair: pair)) == 63 == len(rounds)


def test_soak_duration() -> None:
    assert parse_duration("8h") == 28800 and parse_duration("30m") == 1800 and parse_duration("90") == 90
    with pytest.raises(UsageError):
        parse_duration("soon")
