"""How many of the facts a careful reader sees in the corpus of real switch outputs (tests/switch_corpus.py) the
parsers read: per output, and in total per switch OS."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.all import MODULES  # noqa: F401  (registers every parser)
from pytest_gpufabric.parsers.reading import facts_of
from pytest_gpufabric.parsers.registry import PARSERS, to_plain
from tests.outputs import read_output
from tests.switch_corpus import ABSENT, CORPUS, NOT_READ, Output

MISSING = object()


def lookup(facts: Any, path: tuple[Any, ...]) -> Any:
    """The value at ``path`` in the parser's facts as plain data (MISSING where there is none)."""
    value = to_plain(facts)
    for key in path:
        if isinstance(value, dict):
            value = value.get(str(key), MISSING)
        elif isinstance(value, list) and isinstance(key, int) and key < len(value):
            value = value[key]
        else:
            return MISSING
        if value is MISSING:
            return MISSING
    return value


@dataclass(frozen=True)
class Reading:
    """What a parser made of one output of the corpus: facts present, read, misread, and whether it was refused."""

    output: Output
    present: int
    read: int
    misread: tuple[str, ...]
    refused: str | None


def present(output: Output) -> int:
    """The facts an output shows (those marked ABSENT it does not)."""
    return sum(1 for value in output.facts.values() if value is not ABSENT)


def read_corpus() -> Iterator[Reading]:
    for output in CORPUS:
        try:
            facts = facts_of(PARSERS.get(output.tool).func(read_output(output.tool, output.name)))
        except ParseError as exc:
            yield Reading(output, present(output), 0, (), str(exc))
            continue
        read, misread = 0, []
        for path, expected in output.facts.items():
            found = lookup(facts, path)
            if expected is NOT_READ or expected is ABSENT:
                if found is not MISSING and found is not None:
                    misread.append(f"{path}: {found!r} read where the output does not say it")
                continue
            if found == expected:
                read += 1
            elif found is not MISSING and found is not None:
                misread.append(f"{path}: {found!r} read, the output shows {expected!r}")
        yield Reading(output, present(output), read, tuple(misread), None)


def figure(readings: list[Reading]) -> dict[str, tuple[int, int, int]]:
    """Per OS and in total: (outputs, facts read, facts present)."""
    totals: dict[str, list[int]] = {}
    for reading in readings:
        for key in (reading.output.os, "all"):
            entry = totals.setdefault(key, [0, 0, 0])
            entry[0] += 1
            entry[1] += reading.read
            entry[2] += reading.present
    return {key: (a, b, c) for key, (a, b, c) in totals.items()}
