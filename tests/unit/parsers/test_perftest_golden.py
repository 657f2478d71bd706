"""The perftest parser reads every committed perftest output exactly as it did when ``data/perftest_golden.json``
was written: facts, unread lines (number, text, reason, scope), notes and ParseError messages alike.

The outputs: every capture of fixtures/outputs/perftest/ (each compared in full), every perftest output of the
demo recording (the framed sections of the node-pair scripts and the plain client outputs), and derived outputs
of each capture (cut after and inside every line, every line left out, doubled or damaged, CRLF and tabs,
each capture followed by every other one), compared as one digest per group. It guards the parser's speed-ups:
a faster reading must not change a single fact or reason.

Written again (only after a change that means to read differently) by::

    .venv/bin/python -m tests.unit.parsers.test_perftest_golden
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.perftest import parse_perftest
from pytest_gpufabric.parsers.registry import to_plain
from pytest_gpufabric.parsers.sections import MARK, parse_sections
from pytest_gpufabric.recording.yamltext import load_yaml
from tests.outputs import OUTPUTS, read_output

REPO = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).resolve().with_name("data") / "perftest_golden.json"
DEMO_NODES = REPO / "recordings" / "demo" / "nodes"
PERFTEST_TOOLS = ("ib_write_bw", "ib_send_bw", "ib_read_bw", "ib_write_lat", "ib_send_lat", "ib_read_lat")
CAPTURES = sorted(path.name for path in (OUTPUTS / "perftest").glob("*.txt"))


def outcome(text: str) -> dict[str, Any]:
    """Everything the parser says of ``text``, as plain data."""
    try:
        parsed = parse_perftest(text)
    except ParseError as exc:
        return {"parse_error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - an unexpected exception must stay the same too
        return {"exception": f"{type(exc).__name__}: {exc}"}
    return {"facts": to_plain(parsed.facts),
            "unread": [[u.line, u.text, u.reason, u.scope] for u in parsed.unread],
            "notes": list(parsed.notes)}


def digest(texts: list[str]) -> str:
    """One digest of the outcomes of ``texts``, in order."""
    canonical = json.dumps([outcome(text) for text in texts], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def demo_outputs() -> list[str]:
    """Every perftest output of the demo recording (each section of a framed node script), once each, in order."""
    seen: dict[str, None] = {}
    for path in sorted(DEMO_NODES.glob("*.yaml")):
        for command in load_yaml(path.read_text(encoding="utf-8"))["commands"]:
            if not any(tool in command["command"] for tool in PERFTEST_TOOLS):
                continue
            for episode in command["episodes"]:
                stdout = episode.get("stdout") or ""
                framed = stdout.startswith(MARK)
                for text in [section.text for section in parse_sections(stdout).sections] if framed else [stdout]:
                    seen.setdefault(text, None)
    return list(seen)


def _damaged(line: str) -> Iterator[str]:
    """A line as the field damages it: a digit read as a letter, a separator lost, a word glued on, a cut."""
    digit = next((i for i, char in enumerate(line) if char.isdigit()), None)
    if digit is not None:
        yield line[:digit] + "O" + line[digit + 1:]
    if ":" in line:
        yield line.replace(":", " ", 1)
    yield line + " x"
    yield line[: len(line) // 2]


def variants(text: str) -> dict[str, list[str]]:
    """Derived outputs of one capture, by kind."""
    lines = text.splitlines(keepends=True)
    return {
        "cut": [("".join(lines[:n]) + cut) for n in range(len(lines)) for cut in ("", lines[n][: len(lines[n]) // 2])],
        "line-left-out": ["".join(lines[:n] + lines[n + 1:]) for n in range(len(lines))],
        "line-doubled": ["".join(lines[:n + 1] + lines[n:]) for n in range(len(lines))],
        "line-damaged": ["".join([*lines[:n], damaged + "\n", *lines[n + 1:]])
                         for n in range(len(lines)) for damaged in _damaged(lines[n].rstrip("\r\n"))],
        "spacing": [text.replace("\n", "\r\n"), text.expandtabs(8), text.replace("        ", "\t"),
                    "".join(line.rstrip("\r\n").rstrip() + "   \n" for line in lines), "\n\n" + text + "\n\n"],
        "followed-by-another": [text + read_output("perftest", other) for other in CAPTURES],
    }


def golden_groups() -> dict[str, list[str]]:
    """Every group of outputs compared by digest: the demo recording's and each capture's derived outputs."""
    groups = {"demo-recording": demo_outputs()}
    for name in CAPTURES:
        for kind, texts in variants(read_output("perftest", name)).items():
            groups[f"{name} {kind}"] = texts
    return groups


def write_golden() -> None:
    data = {"captures": {name: outcome(read_output("perftest", name)) for name in CAPTURES},
            "groups": {group: digest(texts) for group, texts in golden_groups().items()}}
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=True) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def groups() -> dict[str, list[str]]:
    return golden_groups()


def test_every_capture_and_group_is_in_the_golden_data(golden: dict[str, Any], groups: dict[str, list[str]]) -> None:
    assert sorted(golden["captures"]) == CAPTURES
    assert sorted(golden["groups"]) == sorted(groups)
    assert len(groups["demo-recording"]) > 100  # the recording's perftest outputs were found


@pytest.mark.parametrize("name", CAPTURES)
def test_capture_reads_as_before(name: str, golden: dict[str, Any]) -> None:
    assert outcome(read_output("perftest", name)) == golden["captures"][name]


def test_derived_outputs_and_demo_recording_read_as_before(golden: dict[str, Any], groups: dict[str, list[str]]) -> None:
    changed = [group for group, texts in groups.items() if digest(texts) != golden["groups"][group]]
    assert not changed, f"read differently from the golden data: {changed}"


if __name__ == "__main__":
    write_golden()
