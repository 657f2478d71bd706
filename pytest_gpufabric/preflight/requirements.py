"""The prerequisites of the checks, as data: ``pytest_gpufabric/prerequisites.yaml`` (see its header), read and
checked once; a requirement knows how to probe itself on a node, a check which requirements it has on a node."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from pytest_gpufabric.errors import UsageError

DATA_FILE = "prerequisites.yaml"
PROBE_KINDS = ("program", "file", "option", "links", "runs", "root", "any")
WHEN_KEYS = ("gpu_vendor", "launcher")
_WORD = re.compile(r"^[A-Za-z0-9_./+:=-]+$")  # names and paths a probe may carry (no shell syntax)
_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class Probe:
    """How to tell on a node whether a requirement holds (one of PROBE_KINDS; ``any``: one of ``alternatives``)."""

    kind: str
    words: tuple[str, ...] = ()
    alternatives: tuple[Probe, ...] = ()


@dataclass(frozen=True)
class Requirement:
    """One prerequisite: what it is, how to probe it, where it comes from."""

    key: str
    label: str
    probe: Probe
    debian: str | None = None
    rhel: str | None = None
    upstream: str | None = None
    build: str | None = None


@dataclass(frozen=True)
class Need:
    """A check's requirement, on every node or only on those matching ``when`` (e.g. GPU vendor amd)."""

    key: str
    when: tuple[tuple[str, str], ...] = ()

    def applies(self, facts: Mapping[str, str]) -> bool:
        return all(facts.get(name) == value for name, value in self.when)


@dataclass(frozen=True)
class Prerequisites:
    """Every requirement (in file order) and each check's needs."""

    requirements: dict[str, Requirement]
    checks: dict[str, tuple[Need, ...]]

    def needs(self, check: str, facts: Mapping[str, str]) -> list[Requirement]:
        """The requirements of ``check`` on a node with ``facts`` (gpu_vendor, launcher)."""
        return [self.requirements[need.key] for need in self.checks.get(check, ()) if need.applies(facts)]


def _problem(where: str, text: str) -> UsageError:
    return UsageError(f"{DATA_FILE}: {where}: {text}")


def _probe(raw: Any, where: str) -> Probe:
    if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in PROBE_KINDS:
        raise _problem(where, f"expected one of {', '.join(PROBE_KINDS)}")
    kind, value = next(iter(raw.items()))
    if kind == "any":
        if not isinstance(value, list) or not value:
            raise _problem(where, "any: expected a list of probes")
        return Probe(kind, alternatives=tuple(_probe(item, f"{where}.any[{i}]") for i, item in enumerate(value)))
    if kind == "root":
        if value is not True:
            raise _problem(where, "root: expected true")
        return Probe(kind)
    words = tuple(map(str, value if isinstance(value, list) else [value]))
    expected = {"option": 2, "links": 2}.get(kind)
    if (expected and len(words) != expected) or not words or not all(_WORD.match(word) for word in words):
        raise _problem(where, f"{kind}: expected {expected or 'one or more'} plain word(s), got {value!r}")
    return Probe(kind, words)


def _requirement(key: str, raw: Any) -> Requirement:
    where = f"requirements.{key}"
    if not _KEY.match(key) or not isinstance(raw, dict) or "label" not in raw or "probe" not in raw:
        raise _problem(where, "expected a lower-case key mapping to label, probe (and debian, rhel, upstream, build)")
    unknown = set(raw) - {"label", "probe", "debian", "rhel", "upstream", "build"}
    if unknown:
        raise _problem(where, f"unknown keys {sorted(unknown)}")
    return Requirement(key, str(raw["label"]), _probe(raw["probe"], f"{where}.probe"),
                       *(None if raw.get(name) is None else str(raw[name]) for name in ("debian", "rhel", "upstream", "build")))


def _need(raw: Any, where: str, known: Mapping[str, Requirement]) -> Need:
    key, when = (raw, {}) if isinstance(raw, str) else (raw.get("need"), raw.get("when", {})) if isinstance(raw, dict) else (None, {})
    if key not in known:
        raise _problem(where, f"unknown requirement {key!r}")
    if not isinstance(when, dict) or set(when) - set(WHEN_KEYS):
        raise _problem(where, f"when: expected a mapping of {', '.join(WHEN_KEYS)}")
    return Need(str(key), tuple(sorted((str(k), str(v)) for k, v in when.items())))


def parse_prerequisites(text: str) -> Prerequisites:
    """The prerequisites file's content, checked (a one-line UsageError for each kind of problem)."""
    raw = yaml.safe_load(text)
    if not isinstance(raw, dict) or set(raw) != {"requirements", "checks"}:
        raise _problem("top level", "expected requirements and checks")
    requirements = {str(key): _requirement(str(key), value) for key, value in raw["requirements"].items()}
    checks = {
        str(check): tuple(_need(need, f"checks.{check}[{i}]", requirements) for i, need in enumerate(needs or []))
        for check, needs in raw["checks"].items()
    }
    return Prerequisites(requirements, checks)


@cache
def load_prerequisites() -> Prerequisites:
    """The prerequisites installed with the package."""
    return parse_prerequisites(resources.files("pytest_gpufabric").joinpath(DATA_FILE).read_text(encoding="utf-8"))
