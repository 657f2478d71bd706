"""SW-007: counters of every host-facing switch port, taken once before the first traffic test of the session
and once after the last one, in whichever process gets there first (also under pytest-xdist).

The snapshots are JSON files in the run's own folder (inside the lock folder the controller chose), written
under a file lock, so every worker judges the same two snapshots. A traffic item is one
that occupies NICs or GPUs (``exclusive.names.is_traffic``); each one leaves a marker when it ends,
and the after-snapshot waits (bounded) until every traffic item of the session has ended. The snapshot
commands are recorded and replayed under their own item names, so a replay is deterministic.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Generator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from pytest_gpufabric.checks.switches import read_counters
from pytest_gpufabric.errors import GpufabricError, MeasurementMissing, ParseError
from pytest_gpufabric.exclusive.names import is_traffic
from pytest_gpufabric.parsers.reading import facts_of
from pytest_gpufabric.switches.facts import PortCounters
from pytest_gpufabric.transport.base import CommandResult

CHECK_ID = "SW-007"
PLUGIN_NAME = "gpufabric-switch-counters"
POLL_S = 0.2
EVIDENCE = "outputs"  # the raw command results of a switch's snapshot (a port is never named so)

Snapshot = dict[str, dict[str, dict[str, Any]]]  # switch -> port -> counters


def snapshot_item(phase: str) -> str:
    """The item name snapshot commands are recorded and replayed under."""
    return f"{CHECK_ID} counters {phase} the traffic tests"


class CounterSnapshots:
    """Takes and shares the before/after snapshots of one run; ``deltas`` hands SW-007 items their values."""

    def __init__(self, session: Any, directory: Path, item_info: Callable[[pytest.Item], tuple[str | None, Any]],
                 wait_timeout_s: float) -> None:
        self.session = session
        self.directory = directory / "switch-counters"
        self._item_info = item_info
        self.wait_timeout_s = wait_timeout_s
        self.traffic_total = 0

    def _is_traffic(self, item: pytest.Item) -> bool:
        check_id, target = self._item_info(item)
        return bool(check_id and is_traffic(check_id, target))

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> Generator[None, None, None]:
        """After every other ordering: count the traffic items and put the SW-007 items last."""
        result = yield
        self.traffic_total = sum(1 for item in items if self._is_traffic(item))
        judged = [item for item in items if self._item_info(item)[0] == CHECK_ID]
        items[:] = [item for item in items if self._item_info(item)[0] != CHECK_ID] + judged
        return result

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if self._is_traffic(item):
            self._ensure("before")

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        if self._is_traffic(item):
            done = self.directory / "done"
            done.mkdir(parents=True, exist_ok=True)
            (done / hashlib.sha1(item.nodeid.encode()).hexdigest()).touch()

    def _ensure(self, phase: str) -> Snapshot:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{phase}.json"
        with FileLock(str(path) + ".lock"):
            if not path.exists():
                path.write_text(json.dumps(self._take(phase)), encoding="utf-8")
            return json.loads(path.read_text(encoding="utf-8"))

    def _take(self, phase: str) -> Snapshot | dict[str, str]:
        """Counters of every host-facing port of every switch; a switch that cannot be read is recorded as
        its error (its SW-007 items then error with that message)."""
        ports: dict[str, set[str]] = {}
        for node in self.session.inventory.nodes:
            for nic in node.nics:
                if nic.switch and nic.switch_port:
                    ports.setdefault(nic.switch, set()).add(nic.switch_port)
        snapshot: dict[str, Any] = {}
        for switch_name, names in ports.items():
            switch = self.session.inventory.switch(switch_name)
            outputs: list[CommandResult] = []
            try:
                counters = read_counters(self._run(phase, outputs), switch, _parse)
                snapshot[switch_name] = {p: counters[p].as_plain() for p in names if p in counters}
            except GpufabricError as exc:
                snapshot[switch_name] = {"error": str(exc)}
            snapshot[switch_name][EVIDENCE] = [asdict(result) for result in outputs]
        return snapshot

    def _run(self, phase: str, outputs: list[CommandResult]) -> Callable[[str, str], CommandResult]:
        def run(switch: str, command: str) -> CommandResult:
            result = self.session.run(switch, command, None, False, snapshot_item(phase))
            outputs.append(result)
            return result

        return run

    def _wait_for_traffic(self) -> None:
        deadline = time.monotonic() + self.wait_timeout_s
        done = self.directory / "done"
        while (len(list(done.iterdir())) if done.exists() else 0) < self.traffic_total:
            if time.monotonic() > deadline:
                raise MeasurementMissing(f"{CHECK_ID}: traffic tests still running after {self.wait_timeout_s:g} s")
            time.sleep(POLL_S)

    def deltas(self, switch: str, port: str) -> tuple[PortCounters, PortCounters, list[CommandResult]]:
        """(before, after) counters of one port and the switch's outputs they come from; skips the item when
        the session runs no traffic test."""
        if self.traffic_total == 0:
            pytest.skip(f"{CHECK_ID}: no traffic test in this session (the counters are compared around them)")
        before = self._ensure("before")
        self._wait_for_traffic()
        after = self._ensure("after")
        evidence = [CommandResult(**raw) for snapshot in (before, after) for raw in snapshot.get(switch, {}).get(EVIDENCE, [])]
        return _port(before, switch, port, "before"), _port(after, switch, port, "after"), evidence


def _parse(parse: Callable[[str], Any], result: CommandResult) -> Any:
    try:
        return facts_of(parse(result.stdout))
    except ParseError as exc:
        raise MeasurementMissing(f"{result.node}: `{result.command}`: {exc}") from None


def _port(snapshot: Snapshot, switch: str, port: str, phase: str) -> PortCounters:
    ports = snapshot.get(switch)
    if ports is None:
        raise MeasurementMissing(f"{switch}: no counter snapshot {phase} the traffic tests")
    if "error" in ports:
        raise MeasurementMissing(f"{switch}: counters {phase} the traffic tests: {ports['error']}")
    if port not in ports or port == EVIDENCE:
        raise MeasurementMissing(f"{switch}: port {port} is not in the counters {phase} the traffic tests")
    return PortCounters.from_plain(ports[port])


def register(config: pytest.Config, session: Any, item_info: Callable[[pytest.Item], tuple[str | None, Any]]) -> None:
    """Register the snapshot hooks when the site has switches (after the scheduling plugin, whose run folder it
    shares)."""
    if not session.inventory.switches:
        return
    scheduling = config.pluginmanager.get_plugin("gpufabric-scheduling")
    timeout = float(config.getoption("lock_timeout"))
    config.pluginmanager.register(CounterSnapshots(session, Path(scheduling.run_dir), item_info, timeout), PLUGIN_NAME)
