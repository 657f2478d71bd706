"""The per-item check context: runs commands for a check, judges values, keeps evidence for reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

import pytest

from pytest_gpufabric.catalog import CheckSpec
from pytest_gpufabric.errors import GpufabricError, MeasurementMissing, ParseError
from pytest_gpufabric.evidence_runner import EvidenceRunner, RunFunc
from pytest_gpufabric.expectations import NoDocumentedThreshold, Profile
from pytest_gpufabric.measuring.mesh import NodeMesh
from pytest_gpufabric.measuring.rails import Measure, NodePairMeasure, RailMeasurement, measure_rails, measure_together
from pytest_gpufabric.measuring.verdicts import pair_record, rails_message
from pytest_gpufabric.parsers.reading import Parsed, Unread
from pytest_gpufabric.parsers.textutil import control_character_notes
from pytest_gpufabric.shapes import MachineShape, shape_of
from pytest_gpufabric.targets import NicPairTarget
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.verdict import Judged, Measurement, failure_message, judge

T = TypeVar("T")
UNREAD_NAMED = 3  # unread lines a missing-measurement message names


@dataclass(frozen=True)
class OutputUnread:
    """An unread line of one command's output, for the evidence and the missing-measurement messages."""

    node: str
    command: str
    unread: Unread

    def describe(self) -> str:
        return f"{self.node} `{self.command}` {self.unread.describe()}"

    def as_record(self) -> dict[str, Any]:
        return {"node": self.node, "command": self.command, "line": self.unread.line, "text": self.unread.text,
                "reason": self.unread.reason, "scope": self.unread.scope}


def _worse(measured: Any, than: Any, op: str) -> bool:
    """Whether ``measured`` is closer to failing ``op`` than ``than`` (the larger for an upper bound, else the
    smaller); values that do not order (exit statuses compared with ==) keep the first one."""
    try:
        return bool(measured > than) if op in ("<=", "<", "==") else bool(measured < than)
    except TypeError:
        return False


def parse_output(parse: Callable[[str], Any], result: CommandResult) -> Any:
    """Parse a command's stdout (``Parsed`` where the parser follows the parsing rule, else plain facts); an
    unusable output is an error naming node and command."""
    try:
        return parse(result.stdout)
    except ParseError as exc:
        raise MeasurementMissing(
            f"{result.node}: `{result.command}` (exit {result.exit_code}): {exc}"
            + (f"; stderr: {result.stderr.strip()[:200]}" if result.stderr.strip() else "")
        ) from None


@dataclass
class CheckContext(EvidenceRunner):
    """Given to each check as the ``gpufabric`` fixture.

    ``run`` reaches a node through the session's transport (live, recorded or replayed) and keeps the
    output as evidence; ``expect`` judges one value against the profile and fails the item with measured
    value, expected value, source and hint when it does not hold.

    A verdict comes from what was read: a fact judged failing stays failing whatever could not be measured
    after it (``part``, ``expect_each`` and ``settle``), and a part that could not be measured makes the item an
    error only when nothing read fails.
    """

    check: CheckSpec
    target_id: str
    profile: Profile
    _run: RunFunc
    commands: list[CommandResult] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    failure_hint: str | None = None  # the diagnosis shown with the failure (the check's own, else the catalog's)
    parsed: dict[tuple[str, str, str], tuple[str, Any]] = field(default_factory=dict)  # the process's facts cache
    rail_pairs: tuple[NicPairTarget, ...] = ()  # the NIC pairs a node-pair item measures (all rails, or a rerun's)
    fanout: int = 1  # NIC pairs measured at once
    pairs: list[dict[str, Any]] = field(default_factory=list)  # one verdict record per NIC pair
    measurer: Callable[[Any], list[RailMeasurement[Any]]] | None = None  # the round engine, when planned
    unread: list[OutputUnread] = field(default_factory=list)  # lines of the parsed outputs not understood
    notes: list[str] = field(default_factory=list)  # about the outputs themselves (control characters replaced)
    unread_scopes: tuple[str, ...] | None = None  # what the item judges (a port): its unread lines, see focus
    mesher: Callable[[], dict[str, NodeMesh]] | None = None  # the mesh engine: the outputs of the item's nodes
    unmeasured: list[GpufabricError] = field(default_factory=list)  # parts that could not be measured, in order
    shape: MachineShape | None = None  # the machine the item judges, for values documented per machine shape

    @overload
    def parse(self, parse: Callable[[str], Parsed[T]], result: CommandResult, *, cached: bool = False) -> T: ...

    @overload
    def parse(self, parse: Callable[[str], T], result: CommandResult, *, cached: bool = False) -> T: ...

    def parse(self, parse: Callable[[str], Any], result: CommandResult, *, cached: bool = False) -> Any:
        """Parse a command's stdout into facts; an unusable output is an error naming node and command. Lines the
        parser did not understand and notes on the output are kept as evidence. ``cached`` reuses what this
        process already parsed from the same output (a switch's configuration, read by every port's items)."""
        key = (result.node, result.command, f"{parse.__module__}.{parse.__qualname__}")
        if cached and key in self.parsed and self.parsed[key][0] == result.stdout:
            parsed, notes = self.parsed[key][1]
        else:
            parsed = self._parse(parse, result)
            notes = control_character_notes(result.stdout) + list(parsed.notes if isinstance(parsed, Parsed) else ())
            if cached:
                self.parsed[key] = (result.stdout, (parsed, notes))
        self._keep_evidence(result, parsed, notes)
        return parsed.facts if isinstance(parsed, Parsed) else parsed

    def _parse(self, parse: Callable[[str], Any], result: CommandResult) -> Any:
        return parse_output(parse, result)

    def _keep_evidence(self, result: CommandResult, parsed: Any, notes: list[str]) -> None:
        for note in dict.fromkeys(notes):
            text = f"{result.node} `{result.command}`: {note}"
            if text not in self.notes:
                self.notes.append(text)
        if isinstance(parsed, Parsed) and parsed.unread:
            known = set(self.unread)
            self.unread.extend(kept for kept in (OutputUnread(result.node, result.command, u) for u in parsed.unread)
                               if kept not in known)

    def focus(self, scopes: tuple[str, ...]) -> None:
        """Name only the unread lines of ``scopes`` (and those of no scope) when a value is missing: the port
        or section the item judges."""
        self.unread_scopes = scopes

    def unread_that_could_hold(self, scopes: tuple[str, ...] | None = None) -> list[OutputUnread]:
        """The unread lines of the parsed outputs that could hold a missing value of ``scopes`` (default: the
        item's focus; all without one)."""
        wanted = scopes if scopes is not None else self.unread_scopes
        return [u for u in self.unread if wanted is None or not u.unread.scope or u.unread.scope in wanted]

    def _unread_hint(self, scopes: tuple[str, ...] | None = None) -> str:
        found = self.unread_that_could_hold(scopes)
        if not found:
            return ""
        more = f" and {len(found) - UNREAD_NAMED} more" if len(found) > UNREAD_NAMED else ""
        return "; unread lines that could hold it: " + "; ".join(u.describe() for u in found[:UNREAD_NAMED]) + more

    def require(self, value: T | None, what: str, *, scopes: tuple[str, ...] | None = None) -> T:
        """A value the check cannot do without; missing is an error, never a pass (naming the unread lines
        that could hold it)."""
        if value is None:
            raise MeasurementMissing(f"{self.target_id}: {what} could not be measured" + self._unread_hint(scopes))
        return value

    def judge(self, name: str, measured: Any, *, where: str | None = None, detail: str = "",
              shape: MachineShape | None = None) -> Measurement:
        """Judge one value without failing the item yet (see ``expect_each``); ``shape``: the machine it was
        measured on, where not the item's own (one rail of a node pair)."""
        place = where or self.target_id
        if measured is None:
            raise MeasurementMissing(f"{self.check.id} at {place}: {name} could not be measured" + self._unread_hint())
        try:
            expectation = self.profile.get(self.check.id, name, shape or self.shape)
        except NoDocumentedThreshold as exc:
            raise exc.with_measured(measured, place) from None
        measurement = judge(expectation, measured, place, detail)
        self.measurements.append(measurement)
        return measurement

    def expect(self, name: str, measured: Any, *, where: str | None = None, detail: str = "", hint: str | None = None) -> None:
        """Judge one value and fail the item at once when it does not hold."""
        self.expect_each([(name, measured, where, detail)], hint=hint)

    def expect_each(
        self, values: Iterable[tuple[str, Any, str | None, str]], *, hint: str | None = None
    ) -> None:
        """Judge every (name, measured, where, detail), each on its own (a value that is None or has no
        threshold is a part not measured, the others are still judged), then ``settle``."""
        for name, measured, where, detail in values:
            with self.part():
                self.judge(name, measured, where=where, detail=detail)
        self.settle(hint=hint)

    @contextmanager
    def part(self) -> Iterator[None]:
        """A part of the check measured on its own: when it cannot be measured (a missing tool, output or
        threshold), the check goes on with the next part and the item's verdict is settled on what was read."""
        try:
            yield
        except GpufabricError as exc:
            self.unmeasured.append(exc)

    def failed(self) -> list[Measurement]:
        """Every value judged so far that does not hold."""
        return [m for m in self.measurements if not m.passed]

    def settle(self, *, hint: str | None = None) -> None:
        """Fail the item when a value judged so far does not hold (naming what could not be measured as
        well); else, when a part could not be measured, end it as an error; else it passes."""
        if self.failed():
            self.fail(hint)
        if self.unmeasured:
            raise self.unmeasured[0] if len(self.unmeasured) == 1 else MeasurementMissing(
                "; ".join(str(exc) for exc in self.unmeasured))

    def fail(self, hint: str | None = None, *, also: GpufabricError | None = None) -> None:
        """Fail the item on the values judged failing, listing the parts not measured (and ``also``)."""
        self.failure_hint = hint or self.check.hint
        unmeasured = [*self.unmeasured, *([also] if also is not None else [])]
        message = failure_message(self.check.id, self.check.title, self.target_id, self.failed(), self.failure_hint,
                                  not_measured=[str(exc) for exc in unmeasured])
        pytest.fail(message, pytrace=False)

    def mesh(self) -> dict[str, NodeMesh]:
        """The mesh outputs of the item's nodes (``measuring.mesh``); their commands become evidence."""
        if self.mesher is None:
            raise MeasurementMissing(f"{self.check.id} is measured as a mesh, and no mesh is planned for {self.target_id}")
        outputs = self.mesher()
        self.commands.extend(evidence for found in outputs.values() if (evidence := found.evidence(self.check.id)) is not None)
        return outputs

    def expect_probes(self, name: str, values: Iterable[tuple[Any, str, str]], what: str) -> None:
        """Judge many probes of one kind (``(measured, where, detail)``, measured None: not measured) and fail
        once, naming each that does not hold. Each failing probe is kept as a measurement of its own; those that
        hold are kept as one (their worst value, how many, ``what``), so an item of 64 NIC pairs both ways does
        not carry 128 identical lines. Nothing failing but some probes not measured: an error naming them."""
        expectation = self.profile.get(self.check.id, name)
        holds: dict[Any, bool] = {}
        failed: list[Measurement] = []
        missing: list[tuple[str, str]] = []
        passing = 0
        worst: tuple[Any, str, str] | None = None
        for measured, where, detail in values:
            if measured is None:
                missing.append((where, detail))
                continue
            if measured not in holds:
                holds[measured] = judge(expectation, measured, where, detail).passed
            if not holds[measured]:
                failed.append(judge(expectation, measured, where, detail))
                continue
            passing += 1
            if worst is None or _worse(measured, worst[0], expectation.op):
                worst = (measured, where, detail)
        if worst is not None:
            value, where, detail = worst
            self.measurements.append(judge(expectation, value, f"{passing} {what}" if passing > 1 else where,
                                           "every one within the threshold; the worst shown" if passing > 1 else detail))
        self.measurements.extend(failed)
        if failed:
            self.failure_hint = self.check.hint
            message = failure_message(self.check.id, self.check.title, self.target_id, failed, self.failure_hint)
            suffix = f"\n  and {len(missing)} not measured, e.g. {missing[0][0]}: {missing[0][1]}" if missing else ""
            pytest.fail(message + suffix, pytrace=False)
        if missing:
            shown = "; ".join(f"{where}: {detail}" for where, detail in missing[:5])
            raise MeasurementMissing(f"{self.target_id}: {len(missing)} {what.split(' (')[0]} not measured: {shown}")

    def measure_rails(self, measure: Measure[T] | NodePairMeasure[T]) -> list[RailMeasurement[T]]:
        """``measure`` every NIC pair of the item at once (at most ``fanout``; a NodePairMeasure: all together);
        their commands become evidence."""
        if self.measurer is not None:
            measured = self.measurer(measure)
        elif isinstance(measure, NodePairMeasure):
            measured = measure_together(self.rail_pairs, measure, self._run)
        else:
            measured = measure_rails(self.rail_pairs, measure, self._run, self.fanout)
        for rail in measured:
            self.commands.extend(rail.commands)
        return measured

    def expect_rails(self, measured: Iterable[RailMeasurement[T]], values_of: Callable[[T], Iterable[Judged]]) -> None:
        """Judge each NIC pair's values (one verdict per pair) and fail once, naming every failing rail; only
        unmeasured pairs and no failing one: an error (MeasurementMissing) naming them."""
        failed: dict[str, list[Measurement]] = {}
        hint = self.check.hint
        for rail in measured:
            judged: list[Measurement] = []
            error = f"{rail.error_kind}: {rail.error}" if rail.error is not None else None
            if error is None:
                assert rail.value is not None
                try:
                    shape = shape_of(rail.pair)
                    judged = [self.judge(n, v, where=w, detail=d, shape=shape) for n, v, w, d in values_of(rail.value)]
                except MeasurementMissing as exc:
                    error = f"{type(exc).__name__}: {exc}"
            failed[rail.pair.id] = [m for m in judged if not m.passed]
            self.pairs.append(pair_record(rail.pair, judged, error=error, hint=hint, check_source=self.check.source))
        if all(record["outcome"] == "passed" for record in self.pairs):
            return
        message = rails_message(self.check.id, self.check.title, self.target_id, self.pairs, failed, hint)
        if not any(record["outcome"] == "failed" for record in self.pairs):
            raise MeasurementMissing(message)
        self.failure_hint = hint
        pytest.fail(message, pytrace=False)
