"""Every broken inventory is answered by exactly its expected one-line problems, never by a traceback.

Each file in fixtures/inventories/broken/ states its expected problems in `# expect: LINE: LOCATION: PHRASE`
header lines; the problem must read `FILE:LINE: LOCATION: ...PHRASE...`.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from inventory_files import BROKEN, EXAMPLE, KNOWN_PROFILES, WriteSite

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.inventory import InventoryError, load_inventory, validate_inventory_file

BROKEN_FILES = sorted(BROKEN.glob("*.yaml"))
EXPECT = "# expect: "


def expected_problems(path: Path) -> list[tuple[int, str, str]]:
    expected = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(EXPECT):
            number, location, phrase = line[len(EXPECT) :].split(": ", 2)
            expected.append((int(number), location, phrase))
    return expected


def assert_problems(problems: list[str], path: Path, expected: list[tuple[int, str, str]]) -> None:
    assert len(problems) == len(expected), "\n".join(problems)
    for problem, (line, location, phrase) in zip(problems, expected, strict=True):
        assert problem.startswith(f"{path}:{line}: {location}: "), problem
        assert phrase in problem, problem
        assert "\n" not in problem


def test_there_are_at_least_25_broken_inventories() -> None:
    assert len(BROKEN_FILES) >= 25
    assert all(expected_problems(path) for path in BROKEN_FILES)


@pytest.mark.parametrize("path", [pytest.param(path, id=path.stem) for path in BROKEN_FILES])
def test_broken_inventory_is_answered_by_its_expected_problem(path: Path) -> None:
    with pytest.raises(InventoryError) as raised:
        load_inventory(path, KNOWN_PROFILES)
    assert_problems(raised.value.problems, path, expected_problems(path))
    assert str(raised.value) == "\n".join(raised.value.problems)
    assert validate_inventory_file(path, KNOWN_PROFILES) == raised.value.problems


def _unreadable(tmp_path: Path) -> Path:
    path = tmp_path / "site.yaml"
    path.write_text("version: 1\n")
    path.chmod(0)
    return path


@pytest.mark.parametrize(
    ("make", "line", "location", "phrase"),
    [
        pytest.param(lambda tmp: tmp / "absent.yaml", 0, "file", "not found", id="missing-file"),
        pytest.param(lambda tmp: tmp, 0, "file", "is a directory", id="directory"),
        pytest.param(lambda tmp: _write_bytes(tmp, b"version: 1\nsite: caf\xe9\n"), 2, "file",
                     "is not UTF-8 text (byte 0xe9 at offset 20)", id="not-utf8"),
        pytest.param(lambda tmp: _write_bytes(tmp, b"version: 1\nsite: a\x07b\n"), 2, "YAML syntax",
                     "character '\\x07' (U+0007) is not allowed", id="control-character"),
        pytest.param(lambda tmp: _write_bytes(tmp, b""), 1, "file", "is empty", id="empty-file"),
        pytest.param(lambda tmp: _write_bytes(tmp, b"# only a comment\n\n"), 1, "file", "is empty", id="comment-only"),
        pytest.param(lambda tmp: _write_bytes(tmp, b"version: 1\n---\nsite: a\n"), 2, "YAML syntax",
                     "expected a single document", id="two-documents"),
        pytest.param(lambda tmp: _write_bytes(tmp, b"just text\n"), 1, "top level",
                     "expected a mapping with the keys version, site", id="scalar-document"),
        pytest.param(lambda tmp: _write_bytes(tmp, b"version: 1\nsite: 'open\n"), 3, "YAML syntax",
                     "found unexpected end of stream", id="unterminated-quote"),
    ],
)  # fmt: skip
def test_file_level_problem(tmp_path: Path, make, line: int, location: str, phrase: str) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    problems = validate_inventory_file(path, KNOWN_PROFILES)
    where = f"{path}:{line}" if line else str(path)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{where}: {location}: "), problems[0]
    assert phrase in problems[0]


def _write_bytes(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "site.yaml"
    path.write_bytes(data)
    return path


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read files without permission")
def test_unreadable_file(tmp_path: Path) -> None:
    path = _unreadable(tmp_path)
    assert validate_inventory_file(path, KNOWN_PROFILES) == [f"{path}: file: cannot be read: permission denied"]


def test_a_file_with_many_problems_reports_all_of_them_in_line_order(minimal_text: str, write_site: WriteSite) -> None:
    text = (
        minimal_text.replace("version: 1", "version: 3")
        .replace("192.168.0.1/24", "192.168.0.300/24")
        .replace("gpu: 0\n", "gpu: 7\n")
        .replace("os: arista", "os: ios")
        .replace("    address: 10.0.0.12\n", "")
    )
    path = write_site(text)
    problems = validate_inventory_file(path, KNOWN_PROFILES)
    assert [problem.split(": ", 2)[:2] for problem in problems] == [
        [f"{path}:2", "version"],
        [f"{path}:17", "nodes[0].nics[0].ipv4"],
        [f"{path}:21", "nodes[0].nics[0].gpu"],
        [f"{path}:27", "nodes[1].address"],
        [f"{path}:34", "switches[0].os"],
    ]


def test_platform_keys_missing_after_merge_are_reported_for_every_node(
    minimal_text: str, write_site: WriteSite
) -> None:
    path = write_site(minimal_text.replace(", deployment: baremetal}", "}"))
    assert validate_inventory_file(path, KNOWN_PROFILES) == [
        f"{path}:{line}: nodes[{index}].platform.deployment: missing (set it in the node's platform or in "
        "defaults.platform; expected one of: baremetal, vmware, guest)"
        for index, line in ((0, 9), (1, 27))
    ]


def test_unknown_profile_when_no_profile_is_installed(minimal_text: str, write_site: WriteSite) -> None:
    path = write_site(minimal_text)
    assert validate_inventory_file(path, ()) == [
        f"{path}:4: profile: unknown profile 'mi300x-thor2' (known profiles: none are installed)"
    ]


def test_threshold_overrides_are_checked_against_known_checks(minimal_text: str, write_site: WriteSite) -> None:
    path = write_site(
        minimal_text.replace("defaults:", "thresholds:\n  PERF-999: {bw: 1}\n  PERF-002: {bw: 2}\ndefaults:")
    )
    assert validate_inventory_file(path, KNOWN_PROFILES, known_checks={"PERF-002"}) == [
        f"{path}:6: thresholds.PERF-999: unknown check 'PERF-999' (expected a check id of the catalog)"
    ]
    assert validate_inventory_file(path, KNOWN_PROFILES) == []


def test_inventory_error_is_a_usage_error_and_pickles() -> None:
    error = InventoryError(["a.yaml:1: version: missing", "a.yaml:2: site: missing"])
    assert isinstance(error, UsageError)
    restored = pickle.loads(pickle.dumps(error))
    assert (restored.problems, str(restored)) == (error.problems, str(error))


def _assert_only_problem_lines(path: Path) -> None:
    problems = validate_inventory_file(path, KNOWN_PROFILES)
    assert all(problem.startswith(str(path)) and "\n" not in problem for problem in problems), problems


def test_no_truncation_of_the_example_escapes_as_a_traceback(tmp_path: Path) -> None:
    data = EXAMPLE.read_bytes()
    path = tmp_path / "site.yaml"
    for end in range(0, len(data), 29):
        path.write_bytes(data[:end])
        _assert_only_problem_lines(path)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda lines, i: lines[:i] + lines[i + 1 :], id="line-deleted"),
        pytest.param(lambda lines, i: lines[: i + 1] + lines[i:], id="line-doubled"),
        pytest.param(lambda lines, i: [*lines[:i], lines[i].replace(":", ": null #", 1), *lines[i + 1 :]],
                     id="value-nulled"),
        pytest.param(lambda lines, i: [*lines[:i], lines[i].replace(": ", ": [", 1), *lines[i + 1 :]],
                     id="bracket-inserted"),
    ],
)  # fmt: skip
def test_no_line_edit_of_the_minimal_inventory_escapes_as_a_traceback(
    tmp_path: Path,
    minimal_text: str,
    edit,  # type: ignore[no-untyped-def]
) -> None:
    lines = minimal_text.splitlines(keepends=True)
    path = tmp_path / "site.yaml"
    for index in range(len(lines)):
        path.write_text("".join(edit(lines, index)), encoding="utf-8")
        _assert_only_problem_lines(path)
