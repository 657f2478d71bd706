"""RecordingTransport in each record mode, over a real subprocess transport."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_gpufabric.errors import RecordingError, TransportError, UsageError
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, load_recording_meta
from recordkit import SubprocessTransport, files_under

MakeStore = Callable[..., RecordingStore]
COUNTER = "n=$(cat {file} 2>/dev/null || echo 0); echo $((n + 1)) | tee {file}"


def counter_command(tmp_path: Path) -> str:
    """A command whose output changes every time it really runs."""
    return COUNTER.format(file=tmp_path / "count")


def record(make_store: MakeStore, mode: RecordMode, run_id: str, *commands: str) -> list[str]:
    transport = RecordingTransport(make_store(run_id=run_id), mode, SubprocessTransport())
    return [transport.run("node01", command, 10, item="t::x").stdout for command in commands]


@pytest.mark.parametrize("text", ["once", "new_episodes", "new-episodes", "ALL", "none"])
def test_modes_are_parsed_by_their_vcrpy_names(text: str) -> None:
    assert RecordMode.parse(text).value == text.lower().replace("-", "_")


def test_an_unknown_mode_lists_the_modes() -> None:
    with pytest.raises(UsageError, match=r"unknown record mode 'rewrite' \(expected one of: once, new_episodes, all, none\)"):
        RecordMode.parse("rewrite")


def test_none_replays_without_a_live_transport(tmp_path: Path, make_store: MakeStore) -> None:
    assert record(make_store, RecordMode.ONCE, "run-1", counter_command(tmp_path)) == ["1\n"]
    replay = RecordingTransport(make_store(run_id="run-2"), RecordMode.NONE, None)
    assert replay.replay_only
    assert replay.run("node01", counter_command(tmp_path), 10, item="t::x").stdout == "1\n"
    with pytest.raises(RecordingError, match="no recorded command matches 'hostname'"):
        replay.run("node01", "hostname", 10)
    replay.close()


def test_none_never_touches_the_live_transport(tmp_path: Path, make_store: MakeStore) -> None:
    record(make_store, RecordMode.ONCE, "run-1", "echo recorded")
    live = SubprocessTransport()
    replay = RecordingTransport(make_store(run_id="run-2"), RecordMode.NONE, live)
    replay.run("node01", "echo recorded", 10)
    with pytest.raises(RecordingError):
        replay.run("node01", "echo not recorded", 10)
    assert live.calls == []


def test_none_on_a_missing_recording_fails_at_the_first_command(recording_dir: Path, make_store: MakeStore) -> None:
    replay = RecordingTransport(make_store(), RecordMode.NONE, None)
    with pytest.raises(RecordingError, match=r"no recording at .* \(expected recording\.yaml\)"):
        replay.run("node01", "uptime", 10)
    assert not recording_dir.exists()


def test_once_records_a_new_recording_then_replays_it_only(tmp_path: Path, make_store: MakeStore, recording_dir: Path) -> None:
    command = counter_command(tmp_path)
    assert record(make_store, RecordMode.ONCE, "run-1", command, command) == ["1\n", "2\n"]
    assert load_recording_meta(recording_dir).created_by_run == "run-1"
    live = SubprocessTransport()
    later = RecordingTransport(make_store(run_id="run-2"), RecordMode.ONCE, live)
    assert later.replay_only
    assert [later.run("node01", command, 10, item="t::x").stdout for _ in range(3)] == ["1\n", "2\n", "2\n"]
    with pytest.raises(RecordingError, match="no recorded command matches"):
        later.run("node01", "hostname", 10)
    assert live.calls == []


def test_once_keeps_recording_in_every_worker_of_the_recording_run(tmp_path: Path, make_store: MakeStore) -> None:
    record(make_store, RecordMode.ONCE, "run-1", "echo first worker")
    second_worker = RecordingTransport(make_store(run_id="run-1"), RecordMode.ONCE, SubprocessTransport())
    assert not second_worker.replay_only
    second_worker.run("node02", "echo second worker", 10)
    assert sorted(make_store().nodes()) == ["node01", "node02"]


def test_once_without_recording_or_live_transport_is_a_usage_error(make_store: MakeStore) -> None:
    with pytest.raises(UsageError, match="record mode once needs a live transport"):
        RecordingTransport(make_store(run_id="run-1"), RecordMode.ONCE, None)


def test_new_episodes_replays_what_is_recorded_and_records_the_rest(tmp_path: Path, make_store: MakeStore) -> None:
    command = counter_command(tmp_path)
    assert record(make_store, RecordMode.ONCE, "run-1", command) == ["1\n"]
    # the first call replays; the second has no unused episode, so it runs live (the counter moves on)
    assert record(make_store, RecordMode.NEW_EPISODES, "run-2", command, command, "echo new") == ["1\n", "2\n", "new\n"]
    recorded = make_store().load_node("node01")
    assert [e.stdout for e in recorded[command]] == ["1\n", "2\n"]
    assert [e.run_id for e in recorded["echo new"]] == ["run-2"]


def test_new_episodes_creates_a_missing_recording(make_store: MakeStore, recording_dir: Path) -> None:
    assert record(make_store, RecordMode.NEW_EPISODES, "run-1", "echo hello") == ["hello\n"]
    assert load_recording_meta(recording_dir).version == 1


def test_all_runs_everything_live_and_replaces_older_episodes(tmp_path: Path, make_store: MakeStore) -> None:
    command = counter_command(tmp_path)
    record(make_store, RecordMode.ONCE, "run-1", command, command)
    assert record(make_store, RecordMode.ALL, "run-2", command) == ["3\n"]
    assert record(make_store, RecordMode.ALL, "run-2", command) == ["4\n"]  # a second worker of run-2
    assert [(e.stdout, e.run_id) for e in make_store().load_node("node01")[command]] == [("3\n", "run-2"), ("4\n", "run-2")]


def test_all_needs_a_run_id(make_store: MakeStore) -> None:
    with pytest.raises(UsageError, match="record mode all needs a run id"):
        RecordingTransport(make_store(), RecordMode.ALL, SubprocessTransport())


def test_the_caller_gets_the_live_output_and_the_file_the_scrubbed_one(recording_dir: Path, make_store: MakeStore) -> None:
    transport = RecordingTransport(make_store(run_id="run-1"), RecordMode.ALL, SubprocessTransport())
    live_result = transport.run("node01", "echo api_key=hunter2; echo password=hunter2 >&2", 10)
    assert (live_result.stdout, live_result.stderr) == ("api_key=hunter2\n", "password=hunter2\n")
    assert all(b"hunter2" not in path.read_bytes() for path in files_under(recording_dir))
    replayed = RecordingTransport(make_store(run_id="run-2"), RecordMode.NONE).run(
        "node01", "echo api_key=hunter2; echo password=hunter2 >&2", 10
    )
    assert (replayed.stdout, replayed.stderr) == ("api_key=<scrubbed>\n", "password=<scrubbed>\n")


@pytest.mark.parametrize("mode", [RecordMode.ONCE, RecordMode.NEW_EPISODES, RecordMode.ALL])
def test_transport_errors_propagate_and_are_not_recorded(make_store: MakeStore, mode: RecordMode) -> None:
    transport = RecordingTransport(make_store(run_id="run-1"), mode, SubprocessTransport(reachable=frozenset({"node01"})))
    with pytest.raises(TransportError, match="node09: unreachable"):
        transport.run("node09", "uptime", 10)
    with pytest.raises(TransportError, match=r"timed out after 0\.2s"):
        transport.run("node01", "sleep 5", 0.2)
    assert make_store().nodes() == []


def test_a_failing_command_is_an_output_and_is_recorded(make_store: MakeStore) -> None:
    record(make_store, RecordMode.ONCE, "run-1", "echo missing >&2; exit 3")
    replayed = RecordingTransport(make_store(run_id="run-2"), RecordMode.NONE).run("node01", "echo missing >&2; exit 3", 10)
    assert (replayed.exit_code, replayed.stderr, replayed.ok) == (3, "missing\n", False)


def test_close_closes_the_live_transport(make_store: MakeStore) -> None:
    live = SubprocessTransport()
    RecordingTransport(make_store(run_id="run-1"), RecordMode.ALL, live).close()
    assert live.closed


def test_the_description_is_written_scrubbed(make_store: MakeStore, recording_dir: Path) -> None:
    RecordingTransport(make_store(run_id="run-1"), RecordMode.ALL, SubprocessTransport(), description="site A, token=abc")
    assert load_recording_meta(recording_dir).description == "site A, token=<scrubbed>"
