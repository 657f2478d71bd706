"""A shared log of which test used which resources when, and the check that no resource was used twice at once.

Each worker appends one JSON line per finished test (item, resources, start, end, worker). Lines are written
with one ``write`` on a file opened for appending, under a file lock, so lines from several processes never
interleave. ``find_overlaps`` reads the records back and names every resource used by two items at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.recording.scrub import Scrubber


class ScheduleLogError(GpufabricError):
    """A schedule log line that is not a complete record."""


@dataclass(frozen=True)
class ScheduleRecord:
    """One finished test: wall-clock start and end (seconds since the epoch) and the worker that ran it."""

    item: str
    resources: tuple[str, ...]
    start: float
    end: float
    worker: str


@dataclass(frozen=True)
class Overlap:
    """Two records that used ``resource`` during the same time."""

    resource: str
    first: ScheduleRecord
    second: ScheduleRecord


class ScheduleLog:
    """Append-only JSON-lines schedule log shared by the processes of one run."""

    def __init__(self, path: os.PathLike[str] | str, scrubber: Scrubber | None = None) -> None:
        self.path = Path(path)
        self._scrubber = scrubber if scrubber is not None else Scrubber()
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, record: ScheduleRecord) -> None:
        """Append one record as one line."""
        if record.end < record.start:
            raise ValueError(f"{record.item}: end {record.end} is before start {record.start}")
        line = json.dumps({"item": record.item, "resources": [self._scrubber.scrub(r) for r in record.resources],
                           "start": record.start, "end": record.end, "worker": self._scrubber.scrub(record.worker)},
                          sort_keys=True) + "\n"  # item: the node id, kept as the reports keep it
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)  # one line at a time from every process of the run
            os.write(descriptor, line.encode("utf-8"))
        finally:
            os.close(descriptor)

    @contextmanager
    def span(self, item: str, resources: Iterable[str], worker: str) -> Iterator[None]:
        """Record the ``with`` body as one use of ``resources`` by ``item`` (recorded even if the body fails)."""
        names = tuple(sorted(set(resources)))
        start = time.time()
        try:
            yield
        finally:
            self.append(ScheduleRecord(item, names, start, time.time(), worker))

    def read(self) -> list[ScheduleRecord]:
        """Every record, in file order; ScheduleLogError names the first bad line."""
        if not self.path.exists():
            return []
        return parse_schedule_lines(self.path.read_text(encoding="utf-8").splitlines())


def parse_schedule_lines(lines: Sequence[str]) -> list[ScheduleRecord]:
    """Records from JSON lines (blank lines skipped)."""
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            record = ScheduleRecord(str(data["item"]), tuple(str(r) for r in data["resources"]),
                                    float(data["start"]), float(data["end"]), str(data["worker"]))
        except (ValueError, KeyError, TypeError) as error:
            raise ScheduleLogError(f"schedule log line {number} is not a record: {error}") from None
        records.append(record)
    return records


def find_overlaps(records: Iterable[ScheduleRecord]) -> list[Overlap]:
    """Every pair of records that used one resource during overlapping times (touching ends do not overlap)."""
    by_resource: dict[str, list[ScheduleRecord]] = {}
    for record in records:
        for resource in record.resources:
            by_resource.setdefault(resource, []).append(record)
    overlaps: list[Overlap] = []
    for resource in sorted(by_resource):
        uses = sorted(by_resource[resource], key=lambda r: (r.start, r.end, r.item))
        active: list[ScheduleRecord] = []
        for record in uses:
            active = [other for other in active if other.end > record.start]
            overlaps.extend(Overlap(resource, other, record) for other in active)
            active.append(record)
    return overlaps
