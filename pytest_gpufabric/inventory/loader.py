"""Loads and validates site.yaml: every problem is reported (file:line: location: what is wrong), none escapes."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

import yaml

from pytest_gpufabric.inventory import rules
from pytest_gpufabric.inventory.frozen_map import FrozenMap
from pytest_gpufabric.inventory.machines import (
    ClusterScope,
    check_switch_references,
    read_defaults,
    read_node,
    read_switch,
)
from pytest_gpufabric.inventory.model import TRANSPORTS, Inventory, Thresholds, ThresholdValue
from pytest_gpufabric.inventory.problems import InventoryError, ProblemLog
from pytest_gpufabric.inventory.reader import Entry, MappingView, Reader, describe, item
from pytest_gpufabric.inventory.signoff_sections import read_deviations, read_test_plan
from pytest_gpufabric.inventory.yaml_source import read_yaml_tree

SUPPORTED_VERSION = 1
TOP_KEYS = (
    "version", "site", "profile", "transport", "thresholds", "recording", "test_plan", "deviations", "defaults", "nodes",
    "switches",
)
RECORDING_KEYS = ("scrub",)


def _version(reader: Reader, view: MappingView) -> int:
    entry = view.require("version")
    if entry is None:
        return SUPPORTED_VERSION
    version = reader.integer(entry.node, entry.location)
    if version is not None and version != SUPPORTED_VERSION:
        reader.problem(entry.node, entry.location, f"unsupported version {version} (expected {SUPPORTED_VERSION})")
    return SUPPORTED_VERSION


def _profile(reader: Reader, view: MappingView, known_profiles: Collection[str]) -> str | None:
    entry = view.require("profile")
    profile = None if entry is None else reader.string(entry.node, entry.location)
    if entry is not None and profile is not None and profile not in known_profiles:
        known = ", ".join(sorted(known_profiles)) if known_profiles else "none are installed"
        reader.problem(entry.node, entry.location, f"unknown profile {profile!r} (known profiles: {known})")
    return profile


def _threshold_value(reader: Reader, node: yaml.Node, location: str) -> ThresholdValue | None:
    if isinstance(node, yaml.SequenceNode):
        values = [reader.plain_scalar(element, item(location, i)) for i, element in enumerate(node.value)]
        return None if any(value is None for value in values) else tuple(values)  # type: ignore[arg-type]
    return reader.plain_scalar(node, location)


def _key_ok(reader: Reader, entry: Entry, rule: Callable[[str], str]) -> bool:
    """Whether a free-form key (check id, threshold name) follows its rule; logs the problem at the key."""
    try:
        rule(entry.key)
    except rules.Invalid as error:
        reader.log.add(entry.key_line, entry.location, str(error))
        return False
    return True


def _thresholds(reader: Reader, entry: Entry | None, known_checks: Collection[str] | None) -> Thresholds:
    view = None if entry is None else reader.mapping(entry.node, entry.location, ())
    if view is None:
        return FrozenMap()
    by_check: dict[str, FrozenMap[str, ThresholdValue]] = {}
    for check, check_entry in view.entries.items():
        if not _key_ok(reader, check_entry, rules.check_id):
            continue
        if known_checks is not None and check not in known_checks:
            reader.log.add(
                check_entry.key_line,
                check_entry.location,
                f"unknown check {check!r} (expected a check id of the catalog)",
            )
            continue
        values_view = reader.mapping(check_entry.node, check_entry.location, ())
        if values_view is None:
            continue
        values: dict[str, ThresholdValue] = {}
        for name, value_entry in values_view.entries.items():
            if not _key_ok(reader, value_entry, rules.threshold_name):
                continue
            value = _threshold_value(reader, value_entry.node, value_entry.location)
            if value is not None:
                values[name] = value
        by_check[check] = FrozenMap(values)
    return FrozenMap(by_check)


def _scrub_patterns(reader: Reader, entry: Entry | None) -> tuple[str, ...]:
    view = None if entry is None else reader.mapping(entry.node, entry.location, RECORDING_KEYS)
    scrub = None if view is None else view.get("scrub")
    nodes = None if scrub is None else reader.sequence(scrub.node, scrub.location)
    if scrub is None or nodes is None:
        return ()
    patterns = (reader.string(node, item(scrub.location, i), rules.scrub_pattern) for i, node in enumerate(nodes))
    return tuple(pattern for pattern in patterns if pattern is not None)


def _machines(
    reader: Reader, view: MappingView, known_profiles: Collection[str], known_checks: Collection[str] | None,
    origin: str,
) -> Inventory:
    site_entry = view.require("site")
    site = None if site_entry is None else reader.string(site_entry.node, site_entry.location, rules.site_name)
    transport_entry = view.get("transport")
    transport = (
        "ssh"
        if transport_entry is None
        else reader.string(transport_entry.node, transport_entry.location, rules.one_of(TRANSPORTS))
    )
    version = _version(reader, view)
    profile = _profile(reader, view, known_profiles)
    thresholds = _thresholds(reader, view.get("thresholds"), known_checks)
    scrub = _scrub_patterns(reader, view.get("recording"))
    test_plan = read_test_plan(reader, view.get("test_plan"))
    deviations = read_deviations(reader, view.get("deviations"), origin, known_checks)
    defaults = read_defaults(reader, view.get("defaults"))
    scope = ClusterScope(reader.log, frozenset(known_profiles))
    nodes_entry = view.require("nodes")
    node_items = None if nodes_entry is None else reader.sequence(nodes_entry.node, nodes_entry.location)
    if nodes_entry is not None and node_items == []:
        reader.log.add(nodes_entry.key_line, nodes_entry.location, "is empty (expected at least one node)")
    nodes = tuple(
        node
        for i, yaml_node in enumerate(node_items or [])
        if (node := read_node(reader, yaml_node, item("nodes", i), defaults, scope)) is not None
    )
    switches_entry = view.get("switches")
    switch_items = None if switches_entry is None else reader.sequence(switches_entry.node, switches_entry.location)
    switches = tuple(
        switch
        for i, yaml_node in enumerate(switch_items or [])
        if (switch := read_switch(reader, yaml_node, item("switches", i), defaults, scope)) is not None
    )
    check_switch_references(reader.log, scope, switches)
    return Inventory(version, site, profile, transport, thresholds, scrub, nodes, switches,  # type: ignore[arg-type]
                     test_plan, deviations)


def _problems_and_inventory(
    path: Path, known_profiles: Collection[str], known_checks: Collection[str] | None
) -> tuple[list[str], Inventory | None]:
    log = ProblemLog(str(path))
    root = read_yaml_tree(Path(path), log)
    if root is None:
        return log.lines(), None
    reader = Reader(log)
    if not isinstance(root, yaml.MappingNode):
        reader.problem(
            root, "top level", f"expected a mapping with the keys {', '.join(TOP_KEYS)}, found {describe(root)}"
        )
        return log.lines(), None
    view = reader.mapping(root, "", TOP_KEYS)
    if view is None:
        return log.lines(), None
    inventory = _machines(reader, view, known_profiles, known_checks, Path(path).name)
    return log.lines(), (None if log.problems else inventory)


def load_inventory(
    path: Path, known_profiles: Collection[str], *, known_checks: Collection[str] | None = None
) -> Inventory:
    """The validated inventory of `path`; raises InventoryError listing every problem found.

    `known_profiles` are the names of the installed threshold profiles; `known_checks`, when given, are the
    catalog's check ids that site threshold overrides may name.
    """
    problems, inventory = _problems_and_inventory(path, known_profiles, known_checks)
    if inventory is None:
        raise InventoryError(problems)
    return inventory


def validate_inventory_file(
    path: Path, known_profiles: Collection[str], *, known_checks: Collection[str] | None = None
) -> list[str]:
    """The problems of `path`, one line each; an empty list means the inventory is valid."""
    problems, _ = _problems_and_inventory(path, known_profiles, known_checks)
    return problems
