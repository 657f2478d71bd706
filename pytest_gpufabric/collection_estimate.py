"""Before a single item is built: how many a run will collect, from the inventory, the pair policy and the check
tests of the paths it collects (read from the test files, as ``gpufabric checks`` does), and the memory they take in
each pytest process (every xdist worker collects them all). Above ``--max-items`` the run stops at once with the
``--pair-policy=rounds:K`` that fits, instead of filling the machine's memory for minutes first.

Node pairs are counted, never listed: at 20,000 nodes ``all`` is 200 million of them. A check test parametrized
further than its scope (COLL-005, once per collective) is counted once: the estimate is a few items short there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_gpufabric.catalog import SCOPES
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.scheduling.pair_option import PairPolicy, leaf_of, read_pair_list
from pytest_gpufabric.scheduling.rounds import lower_bound_rounds

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Inventory

# Measured with tools/collection_scale.py (the process, the inventory and the items; peak RSS): 8 rails, rounds:1,
# 1,000 nodes 281,523 items 296 MB; 5,000 nodes 1,407,523 items 1,025 MB (0.73 kB an item); 20,000 nodes
# 5,630,023 items 3.77 GB (0.67 kB an item). Rounded up: the estimate is an upper bound from a few thousand nodes.
BYTES_PER_ITEM = 800
DEFAULT_MAX_ITEMS = 1_000_000
PAIR_SCOPE = "node_pair"


@dataclass(frozen=True)
class ItemEstimate:
    """The items a run will build: those on nodes, GPUs, NICs and switches, and those of its node-pair checks."""

    other_items: int
    pair_tests: int
    node_pairs: int
    pairs_per_round: int
    policy: str

    @property
    def items(self) -> int:
        return self.other_items + self.pair_tests * self.node_pairs

    @property
    def gigabytes(self) -> float:
        return self.items * BYTES_PER_ITEM / 1e9

    def line(self) -> str:
        """What a run prints before it collects."""
        return (f"gpufabric: about {self.items:,} items to collect ({self.other_items:,} on nodes, GPUs, NICs and "
                f"switches; {self.pair_tests} node-pair checks x {self.node_pairs:,} node pairs with --pair-policy="
                f"{self.policy}), about {self.gigabytes:.1f} GB in each pytest process (each xdist worker collects "
                "them all)")

    def refusal(self, max_items: int) -> str:
        """Why a run above ``max_items`` stops, and what fits."""
        head = f"{self.line()}: above --max-items={max_items:,}"
        if self.pair_tests and self.other_items + self.pair_tests * self.pairs_per_round <= max_items:
            rounds = (max_items - self.other_items) // (self.pair_tests * self.pairs_per_round)
            fits = self.other_items + self.pair_tests * self.pairs_per_round * rounds
            return (f"{head}. Run --pair-policy=rounds:{rounds} (about {fits:,} items: every node meets {rounds} "
                    f"partners), or raise --max-items")
        needed = self.other_items + self.pair_tests * min(self.node_pairs, self.pairs_per_round)
        return (f"{head}; the {self.other_items:,} items on nodes, GPUs, NICs and switches alone do not fit: raise "
                f"--max-items to at least {needed:,} (about {needed * BYTES_PER_ITEM / 1e9:.1f} GB in each pytest "
                "process, with --pair-policy=rounds:1), or test the site in parts (an inventory for each)")


def targets_per_scope(inventory: Inventory) -> dict[str, int]:
    """How many targets each scope has (node pairs aside), counted from the inventory."""
    nics = [nic for node in inventory.nodes for nic in node.nics]
    return {
        "cluster": len({node.platform.gpu_vendor for node in inventory.nodes}),
        "node": len(inventory.nodes),
        "gpu": sum(len(node.gpus) for node in inventory.nodes),
        "nic": len(nics),
        "nic_gpu_pair": sum(nic.gpu is not None for nic in nics),
        "switch": len(inventory.switches),
        "switch_port": sum(nic.switch is not None and nic.switch_port is not None for nic in nics),
    }


def node_pair_count(policy: PairPolicy, inventory: Inventory) -> int:
    """How many node pairs the policy selects (``list:`` counts the file's lines, duplicates included)."""
    count = len(inventory.nodes)
    if policy.kind == "all":
        return comb(count, 2)
    if policy.kind == "rounds":
        assert policy.rounds is not None
        return min(policy.rounds, lower_bound_rounds(count)) * (count // 2)
    if policy.kind == "same-leaf":
        groups: dict[str, int] = {}
        for leaf in leaf_of(inventory).values():
            groups[leaf] = groups.get(leaf, 0) + 1
        return sum(comb(size, 2) for size in groups.values())
    assert policy.path is not None
    try:
        return len(read_pair_list(policy.path.read_text(encoding="utf-8"), str(policy.path)))
    except OSError as exc:
        raise UsageError(f"--pair-policy list: cannot read {policy.path}: {exc.strerror}") from None


def check_test_scopes(paths: Iterable[Path]) -> list[str]:
    """The scope fixture of every check-tagged test function in the test files under ``paths``."""
    scopes = []
    for path in _test_files(paths):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue  # pytest reports it when it collects the file
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(map(_is_check_mark, node.decorator_list)):
                scope = next((arg.arg for arg in node.args.args if arg.arg in SCOPES), None)
                if scope is not None:
                    scopes.append(scope)
    return scopes


def estimate(inventory: Inventory, policy: PairPolicy, scopes: Sequence[str]) -> ItemEstimate:
    """The items of check tests of ``scopes`` on ``inventory`` with ``policy``."""
    targets = targets_per_scope(inventory)
    other = sum(max(1, targets[scope]) for scope in scopes if scope != PAIR_SCOPE)  # an empty scope: one skipped item
    pair_tests = sum(scope == PAIR_SCOPE for scope in scopes)
    return ItemEstimate(other, pair_tests, node_pair_count(policy, inventory), len(inventory.nodes) // 2,
                        policy.describe())


def _test_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.rglob("test_*.py")))
        elif path.suffix == ".py" and path.is_file():
            files.append(path)
    return sorted(set(files))


def _is_check_mark(decorator: ast.expr) -> bool:
    """``@pytest.mark.check("ID")``."""
    return isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) and decorator.func.attr == "check"
