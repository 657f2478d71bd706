"""The recording store: replay order, item preference, errors, scrubbing, determinism, re-recording."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_gpufabric.errors import RecordingError, UsageError
from pytest_gpufabric.recording import RecordingMetaError, RecordingStore, Scrubber, load_recording_meta
from recordkit import files_under, result

MakeStore = Callable[..., RecordingStore]


def test_a_recorded_result_replays_with_its_outputs(make_store: MakeStore) -> None:
    make_store().add(result("node01", "ip -o link show", "1: lo: <LOOPBACK,UP>\n", exit_code=2, stderr="warn\n"))
    replayed = make_store().find("node01", "ip -o link show", "t::x")
    assert replayed.node == "node01" and replayed.command == "ip -o link show"
    assert (replayed.stdout, replayed.stderr, replayed.exit_code, replayed.duration_s) == (
        "1: lo: <LOOPBACK,UP>\n",
        "warn\n",
        2,
        0.25,
    )


def test_repeated_commands_replay_in_recorded_order_then_the_last_repeats(make_store: MakeStore) -> None:
    recorder = make_store()
    for count in ("10\n", "20\n", "30\n"):
        recorder.add(result("node01", "cat rx_bytes", count))
    replay = make_store()
    assert [replay.find("node01", "cat rx_bytes").stdout for _ in range(5)] == ["10\n", "20\n", "30\n", "30\n", "30\n"]


def test_episodes_of_the_asking_item_are_preferred_whatever_runs_before(make_store: MakeStore) -> None:
    recorder = make_store()
    for item, value in [("t::a", "a1\n"), ("t::b", "b1\n"), ("t::a", "a2\n"), ("t::b", "b2\n")]:
        recorder.add(result("node01", "cat rx_bytes", value), item)
    # another worker order: b runs first, a interleaves
    replay = make_store()
    asked = [("t::b", "b1\n"), ("t::a", "a1\n"), ("t::b", "b2\n"), ("t::b", "b2\n"), ("t::a", "a2\n")]
    assert [(item, replay.find("node01", "cat rx_bytes", item).stdout) for item, _ in asked] == asked


def test_an_item_without_episodes_gets_the_recorded_order(make_store: MakeStore) -> None:
    recorder = make_store()
    recorder.add(result("node01", "uptime", "first\n"), "t::a")
    recorder.add(result("node01", "uptime", "second\n"), None)
    replay = make_store()
    assert [replay.find("node01", "uptime", "t::renamed").stdout for _ in range(3)] == ["first\n", "second\n", "second\n"]
    assert replay.find("node01", "uptime", None).stdout == "second\n"  # None is an item like any other


def test_counters_belong_to_the_store_object(make_store: MakeStore) -> None:
    recorder = make_store()
    recorder.add(result("node01", "uptime", "1\n"))
    recorder.add(result("node01", "uptime", "2\n"))
    first, second = make_store(), make_store()
    assert first.find("node01", "uptime").stdout == "1\n"
    assert second.find("node01", "uptime").stdout == "1\n"


def test_a_missing_recording_is_its_own_error(recording_dir: Path, make_store: MakeStore) -> None:
    with pytest.raises(RecordingError) as caught:
        make_store().find("node01", "uptime")
    assert str(caught.value) == f"node01: no recording at {recording_dir} (expected recording.yaml)"
    recording_dir.mkdir()
    with pytest.raises(RecordingError, match=r"no recording at .* \(expected recording\.yaml\)"):
        make_store().find("node01", "uptime")


def test_an_unrecorded_node_names_the_recorded_nodes(recording_dir: Path, make_store: MakeStore) -> None:
    recorder = make_store()
    recorder.add(result("node03", "uptime"))
    recorder.add(result("node01", "uptime"))
    with pytest.raises(RecordingError) as caught:
        make_store().find("node02", "uptime")
    assert str(caught.value) == f"node02: no recording for node node02 in {recording_dir}; recorded nodes: node01, node03"
    assert caught.value.node == "node02"


def test_an_unmatched_command_names_the_closest_recorded_one(make_store: MakeStore) -> None:
    recorder = make_store()
    for command in ["ip -o link show benic2p1", "ethtool benic3p1", "ip -o addr show benic3p1"]:
        recorder.add(result("node02", command))
    with pytest.raises(RecordingError) as caught:
        make_store().find("node02", "ip -o link show benic3p1")
    assert str(caught.value) == (
        "node02: no recorded command matches 'ip -o link show benic3p1'; closest recorded: 'ip -o link show benic2p1'"
    )


def test_a_corrupt_node_file_names_the_file_and_the_reason(recording_dir: Path, make_store: MakeStore) -> None:
    make_store().add(result("node01", "uptime"))
    node_file = recording_dir / "nodes" / "node01.yaml"
    node_file.write_text("node: node01\ncommands: [\n", encoding="utf-8")
    expected = f"node01: corrupt recording file {node_file}: invalid YAML at line 3"
    with pytest.raises(RecordingError) as on_find:
        make_store().find("node01", "uptime")
    with pytest.raises(RecordingError) as on_add:
        make_store().add(result("node01", "hostname"))
    assert str(on_find.value).startswith(expected) and str(on_add.value).startswith(expected)
    assert node_file.read_text(encoding="utf-8") == "node: node01\ncommands: [\n"  # never overwritten


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("format: gpufabric-recording\nversion: 2\n", "has recording format version 2; this release reads version 1 only"),
        ("format: vcr\nversion: 1\n", "is not a gpufabric recording (format: 'vcr', expected 'gpufabric-recording')"),
        ("format: gpufabric-recording\n", "has recording format version None"),
        ("format: [\n", "cannot read"),
    ],
)
def test_an_unknown_version_or_format_is_refused(recording_dir: Path, make_store: MakeStore, content: str, reason: str) -> None:
    recording_dir.mkdir()
    (recording_dir / "recording.yaml").write_text(content, encoding="utf-8")
    with pytest.raises(RecordingMetaError) as meta_error:
        load_recording_meta(recording_dir)
    assert reason in str(meta_error.value) and "\n" not in str(meta_error.value)
    assert isinstance(meta_error.value, UsageError)
    with pytest.raises(RecordingError) as find_error:
        make_store().find("node01", "uptime")
    assert reason in str(find_error.value)


def test_secrets_never_reach_a_file_and_lookups_match_once_scrubbed(recording_dir: Path, make_store: MakeStore) -> None:
    store = make_store(patterns=(r"community (\S+)",))
    store.create("site admin password=hunter2")
    store.add(result("node01", "sshpass -p hunter2 ssh bmc01 status", "token: abc123\n", stderr="community s3cr3t\n"))
    store.add(result("node01", "curl -H 'Authorization: Bearer abc123' https://bmc01/redfish/v1", "{}\n"))
    contents = b"".join(path.read_bytes() for path in files_under(recording_dir))
    for secret in (b"hunter2", b"abc123", b"s3cr3t"):
        assert secret not in contents
    replay = make_store()
    assert replay.find("node01", "sshpass -p other-password ssh bmc01 status").stdout == "token: <scrubbed>\n"
    with pytest.raises(RecordingError) as caught:
        replay.find("node01", "sshpass -p hunter2 ssh bmc02 status")
    assert "hunter2" not in str(caught.value) and "sshpass -p <scrubbed> ssh bmc02 status" in str(caught.value)


def test_recording_in_another_order_gives_byte_identical_files(tmp_path: Path) -> None:
    results = [result("node01", f"ethtool -S benic{n}p1", f"rx_bytes: {n}\n\ttx_bytes: {n * 2}\n") for n in range(8)]
    results += [result("node01", "uptime", "up 1 day\n"), result("node01", "uptime", "up 2 days\n")]
    for name, ordered in (("forward", results), ("backward", results[:8][::-1] + results[8:])):
        store = RecordingStore(tmp_path / name, run_id="run-1")
        for item_result in ordered:
            store.add(item_result, "t::same")
    forward = {path.relative_to(tmp_path / "forward"): path.read_bytes() for path in files_under(tmp_path / "forward")}
    backward = {path.relative_to(tmp_path / "backward"): path.read_bytes() for path in files_under(tmp_path / "backward")}
    assert forward == backward
    assert Path("nodes/node01.yaml") in forward


def test_re_recording_replaces_older_runs_and_keeps_this_runs_episodes(make_store: MakeStore) -> None:
    old = make_store(run_id="run-1")
    old.add(result("node01", "uptime", "old 1\n"))
    old.add(result("node01", "uptime", "old 2\n"))
    old.add(result("node01", "hostname", "node01\n"))
    worker_a, worker_b = make_store(run_id="run-2"), make_store(run_id="run-2")
    worker_a.add(result("node01", "uptime", "new a\n"), replace_older_runs=True)
    worker_b.add(result("node01", "uptime", "new b\n"), replace_older_runs=True)
    recorded = make_store().load_node("node01")
    assert [(e.stdout, e.run_id) for e in recorded["uptime"]] == [("new a\n", "run-2"), ("new b\n", "run-2")]
    assert [e.stdout for e in recorded["hostname"]] == ["node01\n"]  # not re-run: kept


def test_appending_keeps_older_runs(make_store: MakeStore) -> None:
    make_store(run_id="run-1").add(result("node01", "uptime", "old\n"))
    make_store(run_id="run-2").add(result("node01", "uptime", "new\n"))
    assert [e.stdout for e in make_store().load_node("node01")["uptime"]] == ["old\n", "new\n"]


def test_replacing_needs_a_run_id(make_store: MakeStore) -> None:
    with pytest.raises(ValueError, match="run_id"):
        make_store().add(result("node01", "uptime"), replace_older_runs=True)


def test_episodes_of_the_current_run_are_not_replayed(make_store: MakeStore) -> None:
    make_store(run_id="run-1").add(result("node01", "uptime", "earlier run\n"))
    make_store(run_id="run-2").add(result("node01", "uptime", "this run\n"))
    this_run = make_store(run_id="run-2")
    assert [this_run.find("node01", "uptime").stdout for _ in range(2)] == ["earlier run\n"] * 2


@pytest.mark.parametrize("node_name", ["../etc/passwd", ".hidden", "node/01", ""])
def test_node_names_that_are_not_file_names_are_refused(make_store: MakeStore, node_name: str) -> None:
    with pytest.raises(RecordingError, match="cannot name a recording file"):
        make_store().add(result(node_name, "uptime"))


def test_undecodable_bytes_are_stored_as_replacement_characters(make_store: MakeStore) -> None:
    raw = b"GUID: \xff\xfe ok\n".decode("utf-8", "surrogateescape")
    make_store().add(result("node01", "ibv_devinfo", raw))
    assert make_store().find("node01", "ibv_devinfo").stdout == "GUID: \ufffd\ufffd ok\n"


def test_the_folder_holds_only_the_format_files_and_locks(recording_dir: Path, make_store: MakeStore) -> None:
    store = make_store()
    store.add(result("node01", "uptime"))
    (recording_dir / "nodes" / ".node01.yaml.abc123.tmp").write_text("partial", encoding="utf-8")  # killed writer
    store.add(result("node02", "uptime"))
    store.add(result("node01", "hostname"))
    names = {path.relative_to(recording_dir).as_posix() for path in files_under(recording_dir)}
    assert {"recording.yaml", "nodes/node01.yaml", "nodes/node02.yaml"} <= names
    assert all(name.startswith(".locks/") for name in names - {"recording.yaml", "nodes/node01.yaml", "nodes/node02.yaml"})
    assert store.nodes() == ["node01", "node02"]


def test_the_scrubber_may_be_given_by_position(recording_dir: Path) -> None:
    store = RecordingStore(recording_dir, Scrubber([r"vlan (\d+)"]), run_id="run-1")
    store.add(result("node01", "bridge vlan show", "vlan 42\n"))
    assert RecordingStore(recording_dir).find("node01", "bridge vlan show").stdout == "vlan <scrubbed>\n"
