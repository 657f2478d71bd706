"""The sign-off sections of site.yaml: ``test_plan`` (document reference, pair policy, signatories) and
``deviations`` (approved exceptions); the same deviation list is read from a ``--deviations FILE``."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection
from pathlib import Path

import yaml

from pytest_gpufabric.inventory import rules
from pytest_gpufabric.inventory.model import SiteTestPlan
from pytest_gpufabric.inventory.problems import ProblemLog
from pytest_gpufabric.inventory.reader import Entry, Reader, item
from pytest_gpufabric.inventory.yaml_source import read_yaml_tree
from pytest_gpufabric.signoff.deviations import Deviation

TEST_PLAN_KEYS = ("reference", "pair_policy", "sign_off")
SIGN_OFF_KEYS = ("role", "name")
DEVIATION_KEYS = ("check", "where", "reason", "approved_by", "date", "expires")
DEVIATIONS_FILE_KEYS = ("deviations",)
PAIR_POLICY = re.compile(r"^(all|same-leaf|rounds:[1-9][0-9]*|list:\S+)$")
MAX_TEXT = 500


def _text(text: str) -> str:
    if not text.strip() or len(text) > MAX_TEXT or any(ord(c) < 32 and c != "\t" for c in text):
        raise rules.Invalid(f"expected a single line of text of at most {MAX_TEXT} characters")
    return text.strip()


def _pair_policy(text: str) -> str:
    if not PAIR_POLICY.match(text):
        raise rules.Invalid(f"{text!r} is not a pair policy (expected all, rounds:K, same-leaf or list:FILE)")
    return text


def _iso_date(text: str) -> str:
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise rules.Invalid(f"{text!r} is not a date (expected YYYY-MM-DD)") from None


def read_test_plan(reader: Reader, entry: Entry | None) -> SiteTestPlan:
    view = None if entry is None else reader.mapping(entry.node, entry.location, TEST_PLAN_KEYS)
    if view is None:
        return SiteTestPlan()
    reference = view.get("reference")
    policy = view.get("pair_policy")
    signatories: list[tuple[str, str]] = []
    sign_off = view.get("sign_off")
    for index, node in enumerate((reader.sequence(sign_off.node, sign_off.location) or []) if sign_off else []):
        person = reader.mapping(node, item(sign_off.location, index), SIGN_OFF_KEYS)  # type: ignore[union-attr]
        role = person.require("role") if person else None
        name = person.get("name") if person else None
        role_text = reader.string(role.node, role.location, _text) if role else None
        name_text = reader.string(name.node, name.location, _text) if name else ""
        if role_text is not None and name_text is not None:
            signatories.append((role_text, name_text))
    return SiteTestPlan(
        reference=reader.string(reference.node, reference.location, _text) if reference else None,
        pair_policy=(reader.string(policy.node, policy.location, _pair_policy) if policy else None) or "all",
        sign_off=tuple(signatories),
    )


def _deviation(reader: Reader, node: yaml.Node, location: str, origin: str,
               known_checks: Collection[str] | None) -> Deviation | None:
    view = reader.mapping(node, location, DEVIATION_KEYS)
    if view is None:
        return None
    values: dict[str, str | None] = {}
    for key in ("check", "reason", "approved_by", "date"):
        found = view.require(key)
        rule = {"check": rules.check_id, "date": _iso_date}.get(key, _text)
        values[key] = reader.string(found.node, found.location, rule) if found else None
    for key in ("where", "expires"):
        found = view.get(key)
        values[key] = reader.string(found.node, found.location, _iso_date if key == "expires" else _text) if found else None
    check = values["check"]
    if check is not None and known_checks is not None and check not in known_checks:
        reader.problem(node, f"{location}.check", f"unknown check {check!r} (expected a check id of the catalog)")
        return None
    if values["date"] and values["expires"] and values["expires"] < values["date"]:
        reader.problem(node, f"{location}.expires", f"{values['expires']} is before the approval date {values['date']}")
        return None
    if any(values[key] is None for key in ("check", "reason", "approved_by", "date")):
        return None
    return Deviation(check=str(check), reason=str(values["reason"]), approved_by=str(values["approved_by"]),
                     date=str(values["date"]), where=values["where"], expires=values["expires"],
                     origin=f"{origin}:{view.line}")


def read_deviations(reader: Reader, entry: Entry | None, origin: str,
                    known_checks: Collection[str] | None) -> tuple[Deviation, ...]:
    nodes = None if entry is None else reader.sequence(entry.node, entry.location)
    if entry is None or nodes is None:
        return ()
    found = (_deviation(reader, node, item(entry.location, i), origin, known_checks) for i, node in enumerate(nodes))
    return tuple(deviation for deviation in found if deviation is not None)


def deviations_file_problems(path: Path, known_checks: Collection[str] | None) -> tuple[list[str], tuple[Deviation, ...]]:
    """A ``--deviations FILE`` (a mapping with one key, ``deviations``: the list of site.yaml's section): the
    problems, one line each, and the deviations when there are none."""
    log = ProblemLog(str(path))
    root = read_yaml_tree(path, log)
    if root is None:
        return log.lines(), ()
    reader = Reader(log)
    view = reader.mapping(root, "", DEVIATIONS_FILE_KEYS)
    deviations = () if view is None else read_deviations(reader, view.require("deviations"), path.name, known_checks)
    return log.lines(), (deviations if not log.problems else ())
