"""The cabling plan CAB-001 compares with: each NIC's switch and port from the inventory (``switch``,
``switch_port``), or from a plan CSV given with ``--cabling-plan`` (``node,nic,switch,port``: the NIC by its
RDMA device name or its interface; an empty port plans the switch only). Every line is checked; every problem is
one line (``FILE:LINE: ...``)."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_gpufabric.errors import ProblemsError
from pytest_gpufabric.inventory import Inventory, rules

COLUMNS = ("node", "nic", "switch", "port")
PLAN_KEY = pytest.StashKey["CablingPlan"]()  # the run's plan: --cabling-plan, else the inventory's


@dataclass(frozen=True)
class PlannedPort:
    """Where a NIC's cable is planned to end: the switch, its port (None: any port of that switch), and where the
    plan says so."""

    switch: str
    port: str | None
    source: str


@dataclass(frozen=True)
class CablingPlan:
    """The planned end of each NIC, by (node, NIC name), and the switches the plan gives each rail."""

    ports: Mapping[tuple[str, str], PlannedPort]
    rail_leaves: Mapping[int, frozenset[str]]

    def of(self, node: str, nic: str) -> PlannedPort | None:
        return self.ports.get((node, nic))


def _plan(ports: Mapping[tuple[str, str], PlannedPort], inventory: Inventory) -> CablingPlan:
    leaves: dict[int, set[str]] = {}
    for node in inventory.nodes:
        for nic in node.nics:
            planned = ports.get((node.name, nic.name))
            if planned is not None:
                leaves.setdefault(nic.rail, set()).add(planned.switch)
    return CablingPlan(dict(ports), {rail: frozenset(names) for rail, names in leaves.items()})


def inventory_plan(inventory: Inventory, origin: str) -> CablingPlan:
    """The plan the inventory holds (each NIC's switch and switch_port)."""
    return _plan({(node.name, nic.name): PlannedPort(nic.switch, nic.switch_port, origin)
                  for node in inventory.nodes for nic in node.nics if nic.switch}, inventory)


def _row_problems(row: Mapping[str, str], inventory: Inventory) -> tuple[tuple[str, str] | None, list[str]]:
    node = next((n for n in inventory.nodes if n.name == row["node"]), None)
    if node is None:
        return None, [f"node {row['node']!r} is not in the inventory"]
    nic = next((n for n in node.nics if row["nic"] in (n.name, n.netdev)), None)
    if nic is None:
        return None, [f"{node.name} has no NIC {row['nic']!r} (its NICs: {', '.join(n.name for n in node.nics)})"]
    problems = []
    for key, rule in (("switch", rules.machine_name), ("port", rules.switch_port)):
        if row[key] or key == "switch":
            try:
                rule(row[key])
            except rules.Invalid as exc:
                problems.append(f"{key}: {exc}")
    return (node.name, nic.name), problems


def load_cabling_plan(path: Path, inventory: Inventory) -> CablingPlan:
    """A plan CSV checked against the inventory; ``ProblemsError`` lists every problem, one line each."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProblemsError([f"{path}: cannot read the cabling plan: {exc.strerror}"]) from None
    reader = csv.DictReader(text.splitlines())
    if reader.fieldnames is None or [name.strip() for name in reader.fieldnames] != list(COLUMNS):
        raise ProblemsError([f"{path}:1: expected the header {','.join(COLUMNS)}, found {','.join(reader.fieldnames or [])!r}"])
    ports: dict[tuple[str, str], PlannedPort] = {}
    problems: list[str] = []
    for number, raw in enumerate(reader, start=2):
        row = {key: (raw.get(key) or "").strip() for key in COLUMNS}
        key, found = _row_problems(row, inventory)
        if key is not None and key in ports:
            found.append(f"{key[0]}/{key[1]} is planned twice (first at {ports[key].source})")
        problems += [f"{path}:{number}: {problem}" for problem in found]
        if key is not None and not found:
            ports[key] = PlannedPort(row["switch"], row["port"] or None, f"{path}:{number}")
    if problems:
        raise ProblemsError(problems)
    return _plan(ports, inventory)
