"""Fault localization over pair results (the second pass of ClusterKit and Cluster Health Scanner).

An end (a NIC, or a node for node-pair checks) that fails with two or more different partners is the
suspect: its partners fail only with it. A pair that fails while neither of its ends is a suspect points
at what the two share alone: the link between them, a cable or a switch port.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

PAIR_SEPARATOR = "->"
MIN_PARTNERS_FOR_SUSPECT = 2


@dataclass(frozen=True)
class PairOutcome:
    """One pair item's verdict: ``failed`` means the fabric measurement failed (not a setup error)."""

    check_id: str
    a: str
    b: str
    failed: bool


@dataclass(frozen=True)
class SuspectEnd:
    """An end that failed with ``partners`` (two or more), in the checks ``checks``."""

    end: str
    partners: tuple[str, ...]
    checks: tuple[str, ...]


@dataclass(frozen=True)
class SuspectLink:
    """A pair failing only together: neither end fails with anyone else."""

    a: str
    b: str
    checks: tuple[str, ...]


@dataclass(frozen=True)
class Localization:
    suspect_ends: tuple[SuspectEnd, ...]
    suspect_links: tuple[SuspectLink, ...]

    @property
    def empty(self) -> bool:
        return not (self.suspect_ends or self.suspect_links)


def split_pair_id(target_id: str) -> tuple[str, str] | None:
    """The two ends of a pair target id (``node01/bnxt_re0->node02/bnxt_re0``); None for other ids."""
    parts = target_id.split(PAIR_SEPARATOR)
    if len(parts) != 2 or not all(parts):
        return None
    return parts[0], parts[1]


def record_pair_outcomes(record: dict[str, Any]) -> Iterator[PairOutcome]:
    """The pair outcomes of one results record (``check_id``, ``item``, ``outcome``, ``pairs``): one per NIC
    pair of a node-pair record, else the record's own pair. The terminal and the report both localize from
    these, so they name the same suspects."""
    check_id = str(record.get("check_id"))
    pairs = record.get("pairs") or ()
    for pair in pairs:
        yield PairOutcome(check_id, f"{pair['node_a']}/{pair['nic_a']}", f"{pair['node_b']}/{pair['nic_b']}",
                          pair.get("outcome") == "failed")
    ends = None if pairs else split_pair_id(str(record.get("item") or ""))
    if ends is not None:
        yield PairOutcome(check_id, ends[0], ends[1], record.get("outcome") == "failed")


def localize(outcomes: Iterable[PairOutcome]) -> Localization:
    """Suspect ends (failing with >= 2 partners) and suspect links (failing pairs between healthy ends)."""
    partners: dict[str, set[str]] = {}
    checks_of_end: dict[str, set[str]] = {}
    checks_of_pair: dict[tuple[str, str], set[str]] = {}
    for outcome in outcomes:
        if not outcome.failed:
            continue
        key = (min(outcome.a, outcome.b), max(outcome.a, outcome.b))
        checks_of_pair.setdefault(key, set()).add(outcome.check_id)
        for end, other in ((outcome.a, outcome.b), (outcome.b, outcome.a)):
            partners.setdefault(end, set()).add(other)
            checks_of_end.setdefault(end, set()).add(outcome.check_id)
    suspects = {end for end, others in partners.items() if len(others) >= MIN_PARTNERS_FOR_SUSPECT}
    ends = tuple(SuspectEnd(end, tuple(sorted(partners[end])), tuple(sorted(checks_of_end[end]))) for end in sorted(suspects))
    links = tuple(SuspectLink(a, b, tuple(sorted(checks))) for (a, b), checks in sorted(checks_of_pair.items())
                  if a not in suspects and b not in suspects)
    return Localization(ends, links)


def summary_lines(localization: Localization) -> list[str]:
    """Terminal lines: one per suspect end, one per suspect link."""
    lines = [f"suspect {end.end}: fails with {len(end.partners)} partners ({', '.join(end.partners)}) in {', '.join(end.checks)}"
             for end in localization.suspect_ends]
    lines += [f"suspect link {link.a} <-> {link.b} (cable, optics or switch port): fails only together in {', '.join(link.checks)}"
              for link in localization.suspect_links]
    return lines
