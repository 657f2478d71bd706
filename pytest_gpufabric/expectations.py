"""Threshold profiles: every expected value with its unit, comparison and source document.

A profile lives in ``thresholds/<name>.yaml`` (optionally with fragments in ``thresholds/<name>.d/``)::

    profile: mi300x-thor2
    title: AMD Instinct MI300X + Broadcom Thor2, bare metal
    documents: {S0: "Broadcom 957608-AN209 ...", ...}
    not_applicable: {CHECK-ID: reason}          # optional
    test_times:                                 # optional: how long one test of a pair check takes
      PERF-002: {seconds: 7.0, source: "S0 2.8.2 ..."}
    expectations:
      LNK-005:
        mtu: {op: "==", value: 9000, unit: bytes, source: "S0 2.6 item 10"}
      COLL-001:                                 # a value documented for one machine shape only
        busbw_8gb_gbs:
          op: ">="
          unit: GB/s
          by_shape:
          - {shape: {gpus: 8, gpu_link: nvswitch}, value: 456, source: "S1 Single node NCCL tests"}

A value given ``by_shape`` is judged only on a machine of one of its shapes (``shapes.MachineShape``); on any
other it is missing (an error naming the site value to set), never judged against another shape's figure.

Types are checked when the profile loads: an ordering comparison needs a number (a threshold written as
a string would otherwise never fire), ``in`` needs a list, ``version>=`` a dotted version string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from pytest_gpufabric.errors import ThresholdMissing, UsageError
from pytest_gpufabric.shapes import MachineShape, describe_documented, fits, shape_problem

NUMERIC_OPS = {">=", "<=", ">", "<"}
EQUALITY_OPS = {"==", "!="}
VERSION_OPS = {"version>=", "version=="}
OPS = NUMERIC_OPS | EQUALITY_OPS | VERSION_OPS | {"in"}
_EXPECTATION_KEYS = {"op", "value", "unit", "source", "note"}
_SHAPED_KEYS = {"op", "unit", "by_shape", "note"}
_SHAPED_VALUE_KEYS = {"shape", "value", "source", "note"}
_PROFILE_KEYS = {"profile", "title", "documents", "not_applicable", "test_times", "expectations"}
_TEST_TIME_KEYS = {"seconds", "source"}
_FRAGMENT_KEYS = {"expectations", "not_applicable", "platform", "documents"}
_CHECK_ID = re.compile(r"^[A-Z]+-\d{3}$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class ShapedValue:
    """A value documented for one machine shape (``shape``: the properties it names, as sorted pairs)."""

    shape: tuple[tuple[str, Any], ...]
    value: Any
    source: str
    note: str = ""


@dataclass(frozen=True)
class Expectation:
    """One expected value of one check; ``shapes``: the values documented per machine shape (then ``value`` is
    unset and ``source`` names every shape's source, until ``for_shape`` picks the machine's)."""

    check: str
    name: str
    op: str
    value: Any
    unit: str
    source: str
    note: str = ""
    shapes: tuple[ShapedValue, ...] = ()

    def holds_for(self, measured: Any) -> bool:
        """True when ``measured`` satisfies the expectation (measured must not be None)."""
        return compare(measured, self.op, self.value)

    def describe(self) -> str:
        """``>= 380 Gb/s`` style text for messages (per shape for a value documented per machine shape)."""
        if self.shapes:
            return "; ".join(f"{describe_documented(dict(s.shape))}: {self._text(s.value)}" for s in self.shapes)
        return self._text(self.value)

    def _text(self, value: Any) -> str:
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        text = f"{self.op} {shown}" if self.op != "in" else f"one of [{shown}]"
        return f"{text} {self.unit}".rstrip()

    def for_shape(self, shape: MachineShape) -> Expectation | None:
        """The value documented for ``shape`` (this one where it does not depend on the shape), or None."""
        if not self.shapes:
            return self
        found = next((s for s in self.shapes if fits(shape, dict(s.shape))), None)
        if found is None:
            return None
        return replace(self, value=found.value, source=found.source, note=found.note or self.note, shapes=())


class NoDocumentedThreshold(ThresholdMissing):
    """A value the profile documents for other machine shapes only."""

    def __init__(self, expectation: Expectation, shape: MachineShape, profile: str) -> None:
        keys = tuple(dict.fromkeys(key for s in expectation.shapes for key, _ in s.shape))
        self.expectation, self.shape, self.profile = expectation, shape, profile
        self.shape_text = shape.describe(keys)
        super().__init__(
            f"no documented threshold for {self.shape_text}: profile {profile!r} documents "
            f"{expectation.check}.{expectation.name} for {expectation.describe()} only [{expectation.source}]"
        )

    def with_measured(self, measured: Any, where: str) -> ThresholdMissing:
        """The error an engineer reads: the shape, the value measured, and the site.yaml key to set."""
        unit = f" {self.expectation.unit}" if self.expectation.unit else ""
        check, name = self.expectation.check, self.expectation.name
        return ThresholdMissing(
            f"{check} at {where}: no documented threshold for {self.shape_text}; measured {measured!r}{unit}; "
            f"set `thresholds.{check}.{name}` in site.yaml (a site value; `gpufabric baseline` proposes it from a "
            f"known-good node). Profile {self.profile!r} documents {self.expectation.describe()} only "
            f"[{self.expectation.source}]"
        )


@dataclass(frozen=True)
class TestTime:
    """How long one test of a check takes on this platform (one NIC pair of a pair check), with its source."""

    __test__ = False  # not a pytest test class
    check: str
    seconds: float
    source: str


@dataclass(frozen=True)
class Profile:
    """All expectations of a platform, with the documents they cite."""

    name: str
    title: str
    documents: Mapping[str, str]
    not_applicable: Mapping[str, str]
    expectations: Mapping[str, Mapping[str, Expectation]]
    test_times: Mapping[str, TestTime] = field(default_factory=dict)
    # Values of one platform tag (a switch OS: ``juniper``) where its model differs (queues, not traffic classes):
    # ``for_platform`` puts them over the common ones.
    sections: Mapping[str, Mapping[str, Mapping[str, Expectation]]] = field(default_factory=dict)

    def for_platform(self, tag: str) -> Profile:
        """This profile as items of ``tag`` see it: the tag's section over the common values."""
        section = self.sections.get(tag)
        if not section:
            return self
        merged = {check: dict(values) for check, values in self.expectations.items()}
        for check, values in section.items():
            merged.setdefault(check, {}).update(values)
        return replace(self, expectations=merged, sections={})

    def get(self, check: str, name: str, shape: MachineShape | None = None) -> Expectation:
        """The expectation of ``check``.``name`` for a machine of ``shape``; ``ThresholdMissing`` (or
        ``NoDocumentedThreshold``) when the profile has none for it."""
        try:
            expectation = self.expectations[check][name]
        except KeyError:
            raise ThresholdMissing(
                f"profile {self.name!r} has no expectation {check}.{name}; add it to thresholds/{self.name}.yaml "
                "with its source (a check without a threshold never passes)"
            ) from None
        if not expectation.shapes:
            return expectation
        if shape is None:
            raise ThresholdMissing(f"profile {self.name!r} documents {check}.{name} per machine shape, and this "
                                   "item has no machine shape")
        found = expectation.for_shape(shape)
        if found is None:
            raise NoDocumentedThreshold(expectation, shape, self.name)
        return found

    def with_overrides(self, overrides: Mapping[str, Mapping[str, Any]], origin: str) -> Profile:
        """A copy where a site's values replace the profile's (same comparison and unit), in the platform
        sections too; values this profile does not define are left to the site's other profiles (see
        ``apply_site_overrides``)."""
        return replace(self, expectations=_overridden(self.expectations, overrides, origin),
                       sections={tag: _overridden(section, overrides, origin) for tag, section in self.sections.items()})


def _overridden(expectations: Mapping[str, Mapping[str, Expectation]], overrides: Mapping[str, Mapping[str, Any]],
                origin: str) -> dict[str, dict[str, Expectation]]:
    """The expectations with a site's values (marked as site values, naming what the profile documents)."""
    merged = {check: dict(values) for check, values in expectations.items()}
    for check, values in overrides.items():
        for name, value in values.items():
            base = expectations.get(check, {}).get(name)
            if base is None:
                continue
            problem = _value_problem(base.op, value)
            if problem:
                raise UsageError(f"{origin}: thresholds.{check}.{name}: {problem}")
            documented = f"{base.describe()}, {base.source}" if not base.shapes else f"{base.describe()} [{base.source}]"
            merged[check][name] = replace(base, value=value, shapes=(),
                                          source=f"site value: {origin} (site override of {documented})")
    return merged


def override_problems(
    profiles: Mapping[str, Profile], overrides: Mapping[str, Mapping[str, Any]], origin: str
) -> list[str]:
    """Every problem of a site's overrides, one line each: a name none of the site's profiles defines (a
    mistyped name would otherwise change nothing, silently), or a value of the wrong type for the
    profile's comparison (a string for ``>=`` would otherwise never fire)."""
    problems: list[str] = []
    known = ", ".join(sorted(profiles))
    for check, values in overrides.items():
        for name, value in values.items():
            defining = [values[check][name] for p in profiles.values() for values in (p.expectations, *p.sections.values())
                        if name in values.get(check, {})]
            if not defining:
                problems.append(f"{origin}: thresholds.{check}.{name}: defined by none of the profiles ({known})")
            found = dict.fromkeys(problem for base in defining if (problem := _value_problem(base.op, value)))
            problems += [f"{origin}: thresholds.{check}.{name}: {problem}" for problem in found]
    return problems


def apply_site_overrides(
    profiles: Mapping[str, Profile], overrides: Mapping[str, Mapping[str, Any]], origin: str
) -> dict[str, Profile]:
    """Every profile of a site with the site's overrides; ``UsageError`` lists the ``override_problems``."""
    problems = override_problems(profiles, overrides, origin)
    if problems:
        raise UsageError("\n".join(problems))
    return {name: profile.with_overrides(overrides, origin) for name, profile in profiles.items()}


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))


def compare(measured: Any, op: str, expected: Any) -> bool:
    """Apply one comparison; bool is not a number here, and NaN never passes."""
    if op in NUMERIC_OPS:
        if isinstance(measured, bool) or not isinstance(measured, (int, float)) or math.isnan(measured):
            return False
        return {
            ">=": measured >= expected,
            "<=": measured <= expected,
            ">": measured > expected,
            "<": measured < expected,
        }[op]
    if op == "==":
        return measured == expected
    if op == "!=":
        return measured != expected
    if op == "in":
        return measured in expected
    if op == "version>=":
        return _version_key(str(measured)) >= _version_key(str(expected))
    if op == "version==":
        return _version_key(str(measured)) == _version_key(str(expected))
    raise ValueError(f"unknown comparison {op!r}")


def _value_problem(op: str, value: Any) -> str | None:
    if op in NUMERIC_OPS and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return f"comparison {op!r} needs a number, got {value!r}"
    if op == "in" and not isinstance(value, list):
        return f"comparison 'in' needs a list, got {value!r}"
    if op in VERSION_OPS and not (isinstance(value, str) and _version_key(value)):
        return f"comparison {op!r} needs a version string such as '1.10.3', got {value!r}"
    return None


def _shaped_value(op: str, raw: Any, where: str) -> ShapedValue:
    if not isinstance(raw, dict) or set(raw) - _SHAPED_VALUE_KEYS or {"shape", "value", "source"} - set(raw):
        raise UsageError(f"{where}: expected a mapping with shape, value, source (and note)")
    problem = shape_problem(raw["shape"]) or _value_problem(op, raw["value"])
    if problem:
        raise UsageError(f"{where}: {problem}")
    if not str(raw["source"]).strip():
        raise UsageError(f"{where}: empty source (cite the document and section)")
    return ShapedValue(tuple(sorted(raw["shape"].items())), raw["value"], str(raw["source"]), str(raw.get("note") or ""))


def _shaped_expectation(check: str, name: str, raw: dict[str, Any], where: str) -> Expectation:
    unknown = set(raw) - _SHAPED_KEYS
    if unknown:
        raise UsageError(f"{where}: unknown keys {sorted(unknown)} (allowed with by_shape: {sorted(_SHAPED_KEYS)})")
    op = raw.get("op")
    if op not in OPS:
        raise UsageError(f"{where}: unknown op {op!r} (allowed: {', '.join(sorted(OPS))})")
    values = raw["by_shape"]
    if not isinstance(values, list) or not values:
        raise UsageError(f"{where}.by_shape: expected a list of {{shape, value, source}}")
    shapes = tuple(_shaped_value(op, value, f"{where}.by_shape[{i}]") for i, value in enumerate(values))
    if len({s.shape for s in shapes}) != len(shapes):
        raise UsageError(f"{where}.by_shape: a shape is given twice")
    sources = "; ".join(dict.fromkeys(s.source for s in shapes))
    return Expectation(check, name, op, None, str(raw.get("unit") or ""), sources, str(raw.get("note") or ""), shapes)


def _expectation(check: str, name: str, raw: Any, where: str) -> Expectation:
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: expected a mapping with keys {sorted(_EXPECTATION_KEYS)}")
    if "by_shape" in raw:
        return _shaped_expectation(check, name, raw, where)
    unknown = set(raw) - _EXPECTATION_KEYS
    if unknown:
        raise UsageError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(_EXPECTATION_KEYS)})")
    missing = {"op", "value", "source"} - set(raw)
    if missing:
        raise UsageError(f"{where}: missing {sorted(missing)} (every value needs op, value and source)")
    op = raw["op"]
    if op not in OPS:
        raise UsageError(f"{where}: unknown op {op!r} (allowed: {', '.join(sorted(OPS))})")
    problem = _value_problem(op, raw["value"])
    if problem:
        raise UsageError(f"{where}: {problem}")
    if not str(raw["source"]).strip():
        raise UsageError(f"{where}: empty source (cite the document and section)")
    return Expectation(check, name, op, raw["value"], str(raw.get("unit") or ""), str(raw["source"]), str(raw.get("note") or ""))


def known_profiles(directory: Path) -> list[str]:
    return sorted(p.stem for p in directory.glob("*.yaml"))


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise UsageError(f"{path}{line}: not valid YAML ({getattr(exc, 'problem', exc)})") from None


def _add_expectations(path: Path, raw: Any, into: dict[str, dict[str, Expectation]]) -> None:
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: expectations: expected a mapping of check ids")
    for check, values in raw.items():
        if not _CHECK_ID.match(str(check)) or not isinstance(values, dict):
            raise UsageError(f"{path}: expectations.{check}: expected a check id (e.g. LNK-005) mapping names to values")
        for value_name, spec in values.items():
            if not _NAME.match(str(value_name)):
                raise UsageError(f"{path}: expectations.{check}.{value_name}: names are lower_snake_case")
            if value_name in into.get(check, {}):
                raise UsageError(f"{path}: expectations.{check}.{value_name}: defined twice in this profile")
            into.setdefault(check, {})[value_name] = _expectation(
                check, value_name, spec, f"{path}: expectations.{check}.{value_name}"
            )


def _test_times(path: Path, raw: Any) -> dict[str, TestTime]:
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: test_times: expected a mapping of check ids")
    times = {}
    for check, spec in raw.items():
        where = f"{path}: test_times.{check}"
        if not _CHECK_ID.match(str(check)) or not isinstance(spec, dict) or set(spec) != _TEST_TIME_KEYS:
            raise UsageError(f"{where}: expected a check id mapping to {{seconds, source}}")
        seconds = spec["seconds"]
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
            raise UsageError(f"{where}.seconds: expected a positive number, got {seconds!r}")
        if not str(spec["source"]).strip():
            raise UsageError(f"{where}.source: empty source (cite the document and section)")
        times[str(check)] = TestTime(str(check), float(seconds), str(spec["source"]))
    return times


def load_profile(directory: Path, name: str) -> Profile:
    """Load and type-check ``directory/name.yaml`` and its fragments ``directory/name.d/*.yaml`` (each with
    ``expectations`` and ``not_applicable`` only, merged in name order; a value defined twice is an error).
    Every problem is a one-line UsageError."""
    path = directory / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(known_profiles(directory)) or "none"
        raise UsageError(f"unknown thresholds profile {name!r}: no {path} (known profiles: {known})")
    raw = _read_yaml(path)
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: expected a mapping with keys {sorted(_PROFILE_KEYS)}")
    unknown = set(raw) - _PROFILE_KEYS
    if unknown:
        raise UsageError(f"{path}: unknown keys {sorted(unknown)} (allowed: {sorted(_PROFILE_KEYS)})")
    if raw.get("profile") != name:
        raise UsageError(f"{path}: 'profile' must be {name!r}, found {raw.get('profile')!r}")
    expectations: dict[str, dict[str, Expectation]] = {}
    sections: dict[str, dict[str, dict[str, Expectation]]] = {}
    documents = dict(raw.get("documents") or {})
    not_applicable = {str(k): str(v) for k, v in (raw.get("not_applicable") or {}).items()}
    _add_expectations(path, raw.get("expectations") or {}, expectations)
    for fragment in sorted((directory / f"{name}.d").glob("*.yaml")):
        part = _read_yaml(fragment) or {}
        if not isinstance(part, dict) or set(part) - _FRAGMENT_KEYS:
            raise UsageError(f"{fragment}: a profile fragment holds only {sorted(_FRAGMENT_KEYS)}")
        platform = part.get("platform")
        if platform is not None and not (isinstance(platform, str) and _NAME.match(platform)):
            raise UsageError(f"{fragment}: platform: expected a platform tag such as juniper, got {platform!r}")
        into = sections.setdefault(platform, {}) if platform else expectations
        _add_expectations(fragment, part.get("expectations") or {}, into)
        documents.update({str(k): str(v) for k, v in (part.get("documents") or {}).items()})
        not_applicable.update({str(k): str(v) for k, v in (part.get("not_applicable") or {}).items()})
    return Profile(
        name=name,
        title=str(raw.get("title") or name),
        documents=documents,
        not_applicable=not_applicable,
        expectations=expectations,
        test_times=_test_times(path, raw.get("test_times") or {}),
        sections=sections,
    )
