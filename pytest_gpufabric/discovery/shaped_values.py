"""``gpufabric baseline`` for values documented per machine shape: where the profile documents none for the
known-good node's shape (2 GPUs where S1 gives 8, say), the node's own measurement is proposed as a site value,
5 % below what it measured (the margin the profiles apply to a document's approximate figure), with the
command and the measured value in the comment. Values that need two nodes (NIC-pair bandwidth) are named, not
proposed: one node cannot measure them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.checks.collectives import EIGHT_GB, perf_program
from pytest_gpufabric.commands import sh
from pytest_gpufabric.discovery.baseline import Reading
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.discovery.probe import NodeFacts
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.parsers.nccl_tests import busbw_at, parse_nccl_tests
from pytest_gpufabric.shapes import MachineShape

MARGIN = 0.05
Measure = Callable[[NodeReader, NodeFacts], tuple[float, str] | None]


def facts_shape(facts: NodeFacts) -> MachineShape:
    """The machine shape of a discovered node (its NICs' speed where they all agree)."""
    speeds = {nic.speed_gbps for nic in facts.nics if nic.speed_gbps}
    return MachineShape(len(facts.gpus), facts.platform.gpu_model, facts.platform.gpu_link,
                        speeds.pop() if len(speeds) == 1 else None)


def _all_reduce(env: tuple[str, ...]) -> Measure:
    """In-place busbw at 8 GB of the single-node all_reduce, the command COLL-001 (COLL-006: with ``env``) runs."""
    def measure(reader: NodeReader, facts: NodeFacts) -> tuple[float, str] | None:
        command = sh(*env, *perf_program("all_reduce", "8", "8G", len(facts.gpus)))
        result = reader.answer(command, parse_nccl_tests)
        value = None if result is None else busbw_at(result, EIGHT_GB)
        return None if value is None else (value, command)
    return measure


# What one node can measure for a value documented per shape: COLL-001 and COLL-006 (AMD only, S0 8.6).
ONE_NODE_MEASURES: dict[tuple[str, str], Measure] = {
    ("COLL-001", "busbw_8gb_gbs"): _all_reduce(()),
    ("COLL-006", "busbw_8gb_gbs"): _all_reduce(("env", "RCCL_ENABLE_INTRANET=1")),
}


def proposed(measured: float) -> float:
    """The site value proposed from a measurement: MARGIN below it, rounded down to one decimal."""
    return math.floor(measured * (1 - MARGIN) * 10) / 10


def _applies(check: str, facts: NodeFacts) -> bool:
    """Whether the catalog's ``applies`` covers the node (GPU vendor, NIC vendor, deployment)."""
    applies = set(load_catalog().get(check).applies)
    tags = {facts.platform.gpu_vendor, facts.platform.nic_vendor,
            "vmware" if facts.platform.virtualization == "vmware" else "baremetal"}
    return not applies or bool(applies & tags)


def _why_not_measured(check: str, name: str, keys: tuple[str, ...], facts: NodeFacts) -> str | None:
    """Why the node cannot propose a value for ``check``.``name`` (None: it can), or "" when it does not concern
    the node at all (no NIC for a NIC value)."""
    if "nic_gbps" in keys:
        return "" if not facts.nics else "it is measured between two nodes: measure a known-good pair, then set it"
    if (check, name) not in ONE_NODE_MEASURES:
        return "one node cannot measure it"
    if len(facts.gpus) < 2:
        return "one GPU moves no data between GPUs"
    return None


def propose_shaped_values(reader: NodeReader, facts: NodeFacts, profile: Profile) -> Iterator[Reading]:
    """A site value for each value the profile documents for other shapes only (measured on the node where one
    node can measure it; otherwise a note saying why none is proposed)."""
    shape = facts_shape(facts)
    for check, values in profile.expectations.items():
        if check in profile.not_applicable or not _applies(check, facts):
            continue
        for name, expectation in values.items():
            if not expectation.shapes or expectation.for_shape(shape) is not None:
                continue
            keys = tuple(dict.fromkeys(key for s in expectation.shapes for key, _ in s.shape))
            reason = _why_not_measured(check, name, keys, facts)
            if reason is not None:
                if reason:
                    reader.notes.append(f"{check}.{name}: no documented value for {shape.describe(keys)}, none proposed "
                                        f"({reason}); set thresholds.{check}.{name} in site.yaml")
                continue
            found = ONE_NODE_MEASURES[(check, name)](reader, facts)
            if found is None:
                continue  # the reader noted the command that did not answer
            value, command = found
            yield Reading(check, name, proposed(value), command,
                          note=f"site value: measured {value:g} {expectation.unit} on {facts.name}, "
                               f"{MARGIN:.0%} below proposed; {profile.name} documents no value for {shape.describe(keys)}")
