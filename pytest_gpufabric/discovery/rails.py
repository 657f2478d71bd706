"""Rails from subnets: the same IPv4 subnet across nodes is one rail, numbered in address order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from ipaddress import IPv4Network


def majority_threshold(node_count: int) -> int:
    """How many nodes must share something for it to be the cluster's plan (more than half)."""
    return node_count // 2 + 1


def rail_numbers(subnets_by_node: Mapping[str, Iterable[IPv4Network]]) -> dict[IPv4Network, int]:
    """Rail number of every subnet: the subnets most nodes use first (0, 1, ... in address order), then
    the subnets of a minority of nodes (a different subnet plan), so the cluster's plan keeps 0..K-1."""
    users = Counter(subnet for subnets in subnets_by_node.values() for subnet in set(subnets))
    quorum = majority_threshold(len(subnets_by_node)) if len(subnets_by_node) > 1 else 1
    common = sorted(subnet for subnet, count in users.items() if count >= quorum)
    rare = sorted(subnet for subnet, count in users.items() if count < quorum)
    return {subnet: rail for rail, subnet in enumerate(common + rare)}


def minority_subnets(subnets_by_node: Mapping[str, Iterable[IPv4Network]]) -> dict[str, list[IPv4Network]]:
    """Per node, the subnets that fewer than a majority of the nodes use (empty lists left out)."""
    users = Counter(subnet for subnets in subnets_by_node.values() for subnet in set(subnets))
    if len(subnets_by_node) < 2:
        return {}
    quorum = majority_threshold(len(subnets_by_node))
    found = {
        node: sorted(subnet for subnet in set(subnets) if users[subnet] < quorum)
        for node, subnets in subnets_by_node.items()
    }
    return {node: subnets for node, subnets in found.items() if subnets}
