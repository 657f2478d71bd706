"""Targets and their ids come from inventory names only, and stay put when unrelated nodes change."""

from __future__ import annotations

import pytest

from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.targets import node_pair_targets, targets_for_scope


@pytest.fixture
def demo_ids(demo_inventory: Inventory):  # type: ignore[no-untyped-def]
    return lambda scope: [t.id for t in targets_for_scope(demo_inventory, scope)]


def test_id_shapes(demo_ids) -> None:  # type: ignore[no-untyped-def]
    assert demo_ids("node")[0] == "node01"
    assert demo_ids("gpu")[0] == "node01/gpu0"
    assert demo_ids("nic")[0] == "node01/bnxt_re0"
    assert demo_ids("nic_gpu_pair")[0] == "node01/bnxt_re0~gpu0"
    assert demo_ids("node_pair")[0] == "node01->node02"
    assert demo_ids("nic_pair")[0] == "node01/bnxt_re0->node02/bnxt_re0"


def test_nic_pairs_stay_on_their_rail(demo_ids) -> None:  # type: ignore[no-untyped-def]
    for pair in demo_ids("nic_pair"):
        a, b = pair.split("->")
        assert a.split("/")[1] == b.split("/")[1]


def test_a_mixed_cluster_gets_one_collective_target_per_gpu_vendor(demo_ids) -> None:  # type: ignore[no-untyped-def]
    assert demo_ids("cluster") == ["cluster-amd", "cluster-nvidia"]


def test_node_pair_targets_follow_the_given_order_oriented_as_the_inventory(demo_inventory: Inventory) -> None:
    targets = node_pair_targets(demo_inventory, [("node03", "node01"), ("node02", "node04")])
    assert [t.id for t in targets] == ["node01->node03", "node02->node04"]


def test_a_node_pair_holds_its_same_rail_nic_pairs_in_rail_order(demo_inventory: Inventory) -> None:
    (pair,) = node_pair_targets(demo_inventory, [("node01", "node02")])
    rails = pair.rail_pairs()
    assert [r.nic_a.rail for r in rails] == list(range(8)) and all(r.nic_a.rail == r.nic_b.rail for r in rails)
    assert {r.id for r in rails} == {t.id for t in targets_for_scope(demo_inventory, "nic_pair") if t.nodes == pair.nodes}
