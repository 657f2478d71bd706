"""Evidence is never lost: each run writes its own directory under its run id, ``latest`` points at the newest,
``--collect-only`` (or any run that records nothing) writes nothing, and no run touches another run's files."""

from __future__ import annotations

from pathlib import Path

from demo_runs import replay

SUBSET = ("-k", "test_bnxt_en_version")


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def test_collect_only_and_a_second_run_leave_the_first_run_byte_identical(tmp_path: Path) -> None:
    root = tmp_path / "results"
    first = replay(root, *SUBSET)
    first_dir = first.run_dir
    before = _snapshot(first_dir)
    assert {"results.jsonl", "run.json", "plan.json", "deviations.json"} <= set(before)

    collected = replay(root, "--collect-only", *SUBSET)
    assert collected.exit_code == 0, collected.output[-2000:]
    assert sorted(p.name for p in root.iterdir() if not p.is_symlink()) == [first_dir.name]  # nothing written

    second = replay(root, *SUBSET)
    assert second.run_dir != first_dir and second.run_dir.parent == root
    assert _snapshot(first_dir) == before  # byte-identical
    assert (root / "latest").resolve() == second.run_dir
    assert (root / "results.jsonl").read_bytes() == (second.run_dir / "results.jsonl").read_bytes()
    assert (second.run_dir / "results.jsonl").read_bytes() == before["results.jsonl"]  # same replay, same records


def test_a_run_that_records_nothing_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "results"
    run = replay(root, "-k", "no_such_test_at_all")

    assert run.exit_code == 5  # no tests ran
    assert not root.exists()


def test_an_older_single_file_results_root_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "results"
    root.mkdir()
    (root / "results.jsonl").write_text('{"outcome": "passed"}\n', encoding="utf-8")

    run = replay(root, *SUBSET)

    assert (root / "results.jsonl").read_text(encoding="utf-8") == '{"outcome": "passed"}\n'
    assert (run.run_dir / "results.jsonl").stat().st_size > 0
