"""The acceptance suite over real SSH against a 2-node, 2-rail namespace lab (profile lab-linux).

Each test runs ``python -m pytest suites/acceptance --cluster=<lab site.yaml>`` in a subprocess and reads
its results.jsonl: a healthy lab gives real verdicts for the checks that make sense on plain Linux hosts
and reasoned skips for the rest; each injected fault makes exactly the items it should fail or error,
with a clear message, while every other item still gets its verdict. Two nodes keep the ping checks
(one node pair) short; the node that carries the faults is node02."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_gpufabric.lab import Faults, Lab
from pytest_gpufabric.lab.preflight import required_tools
from pytest_gpufabric.transport.bounded import bounded_command
from tests.lab.conftest import INSTALLER
from tests.lab.programs import programs_of, recorded_commands, unlisted_programs
from tests.lab.suite_run import (
    LIVE_CHECKS,
    SUITE,
    SuiteRun,
    accepted_logins,
    processes_in_node,
    run_suite,
)

pytestmark = pytest.mark.lab

PROBES = Path(__file__).resolve().parent / "probes"
FAULTY = "node02"
GOOD = "node01"
PAIR = f"{GOOD}->{FAULTY}"
MACHINE_CHECKS = frozenset(
    {"HOST-001", "HOST-002", "HOST-004"}
)  # read this machine's kernel: its verdict
CHEAP_FILES = (
    SUITE / "test_host.py",
    SUITE / "test_link.py",
)  # no ping: for faults that do not touch traffic


@pytest.fixture(scope="module")
def acceptance_lab(lab_host: None) -> Iterator[Lab]:
    with Lab(nodes=2, rails=2, installer=INSTALLER) as built:
        yield built


@pytest.fixture(scope="module")
def site(acceptance_lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return acceptance_lab.write_inventory(tmp_path_factory.mktemp("site") / "site.yaml")


@pytest.fixture
def lab_faults(acceptance_lab: Lab) -> Iterator[Faults]:
    yield acceptance_lab.faults
    acceptance_lab.faults.revert_all()


@pytest.fixture(scope="module")
def healthy(
    acceptance_lab: Lab, site: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[SuiteRun, Path, dict[str, int]]:
    """The healthy lab, whole suite, -n 0, recorded: the run, its recording and the logins per node."""
    out = tmp_path_factory.mktemp("healthy")
    before = {
        n.name: accepted_logins(acceptance_lab, n.name) for n in acceptance_lab.nodes
    }
    run = run_suite(site, out / "results", "--record", str(out / "recording"))
    logins = {
        n.name: accepted_logins(acceptance_lab, n.name) - before[n.name]
        for n in acceptance_lab.nodes
    }
    return run, out / "recording", logins


def expected_machine_verdict(check_id: str) -> str:
    """What HOST-001 / HOST-002 must say on this machine, read directly from /proc."""
    if check_id == "HOST-001":
        params = Path("/proc/cmdline").read_text().split()
        off = {"iommu=off", "amd_iommu=off", "intel_iommu=off"}
        passthrough = {
            "iommu=pt",
            "iommu.passthrough=1",
            "iommu.passthrough=on",
            "iommu.passthrough=y",
        }
        return "passed" if off.union(passthrough).intersection(params) else "failed"
    if check_id == "HOST-002":
        return (
            "passed"
            if Path("/proc/sys/kernel/numa_balancing").read_text().strip() == "0"
            else "failed"
        )
    raise ValueError(check_id)


def assert_verdicts_except(
    run: SuiteRun, expected: dict[tuple[str, str], set[str]]
) -> None:
    """Items named in ``expected`` have one of the given outcomes; every other live item passes (or, for
    the machine's own checks, matches the healthy verdict) and every other item skips with a reason."""
    assert run.records, run.output[-3000:]
    for record in run.records:
        key = (str(record["check_id"]), str(record["item"]))
        outcome = record["outcome"]
        if key in expected:
            assert outcome in expected[key], (
                f"{key}: {outcome}\n{record.get('message')}\n{run.describe()}"
            )
            assert record["message"], f"{key}: {outcome} without a message"
        elif key[0] in LIVE_CHECKS:
            if key[0] in ("HOST-001", "HOST-002"):
                assert outcome == expected_machine_verdict(key[0]), (
                    f"{key}: {outcome}\n{run.describe()}"
                )
            elif key[0] == "HOST-004":
                assert outcome in ("passed", "failed"), (
                    f"{key}: {outcome}\n{run.describe()}"
                )
            else:
                assert outcome == "passed", (
                    f"{key}: {outcome}\n{record.get('message')}\n{run.describe()}"
                )
        else:
            assert outcome == "skipped", f"{key}: {outcome}\n{run.describe()}"
            assert len(str(record["message"])) > len("Skipped: "), (
                f"{key} skipped without a reason"
            )
    missing = set(expected) - {
        (str(r["check_id"]), str(r["item"])) for r in run.records
    }
    assert not missing, f"no record for {missing}"


def errors(items: set[tuple[str, str]]) -> dict[tuple[str, str], set[str]]:
    """The expectation that every one of ``items`` errors."""
    return {item: {"error"} for item in items}


def assert_message(run: SuiteRun, check_id: str, item: str, *fragments: str) -> None:
    message = str(run.record(check_id, item)["message"])
    for fragment in fragments:
        assert fragment in message, (
            f"{check_id} {item}: {fragment!r} not in {message!r}"
        )


def node_items(run: SuiteRun, node: str) -> set[tuple[str, str]]:
    """Every live item that involves ``node`` (its own items and the pairs it is part of)."""
    return {
        (str(r["check_id"]), str(r["item"]))
        for r in run.records
        if r["check_id"] in LIVE_CHECKS
        and node in str(r["item"]).replace("->", " ").replace("/", " ").split()
    }


# ------------------------------------------------------------------------------------------ healthy lab


def test_healthy_lab_gives_real_verdicts_and_skips_the_rest_with_reasons(
    healthy: tuple[SuiteRun, Path, dict[str, int]],
) -> None:
    run, _, _ = healthy
    assert_verdicts_except(run, {})
    judged = {str(r["check_id"]) for r in run.records if r["outcome"] != "skipped"}
    assert judged == LIVE_CHECKS, run.describe()
    assert (
        len(run.of("NET-001")) == 1 and [len(r["pairs"]) for r in run.of("NET-002")] == [2]  # type: ignore[arg-type]
    )  # one node pair; NET-002 judges its NIC pair of each rail
    for record in run.records:
        if record["outcome"] == "passed":
            assert record["commands"], (
                f"{record['node_id']} passed without running a command"
            )


def test_one_ssh_connection_per_node_whatever_the_number_of_commands(
    healthy: tuple[SuiteRun, Path, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    run, _, logins = healthy
    commands = {
        node: sum(1 for r in run.records for c in r["commands"] if c["node"] == node)  # type: ignore[union-attr]
        for node in logins
    }
    # One connection per node from the run (-n 0: one process); HOST-008 adds the probe node01 -> node02.
    assert logins == {GOOD: 1, FAULTY: 2}, logins
    assert min(commands.values()) >= 10, commands
    with capsys.disabled():
        print(
            f"\nSSH logins per node in a -n 0 run: {logins}; commands run per node: {commands}"
        )


def test_workers_give_the_same_verdicts_with_a_connection_per_worker(
    acceptance_lab: Lab,
    site: Path,
    tmp_path: Path,
    healthy: tuple[SuiteRun, Path, dict[str, int]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    serial, _, _ = healthy
    before = {
        n.name: accepted_logins(acceptance_lab, n.name) for n in acceptance_lab.nodes
    }
    parallel = run_suite(site, tmp_path / "results", workers=4)
    logins = {
        n.name: accepted_logins(acceptance_lab, n.name) - before[n.name]
        for n in acceptance_lab.nodes
    }
    assert parallel.outcomes() == serial.outcomes(), parallel.describe()
    # at most one connection per worker, and node02 the HOST-008 probe from node01 (the mesh runs once)
    assert all(1 <= count <= 4 + (node == FAULTY) for node, count in logins.items()), logins
    with capsys.disabled():
        print(
            f"\nlab acceptance run wall time: -n 0 {serial.wall_s:.1f} s, -n 4 {parallel.wall_s:.1f} s; "
            f"SSH logins per node with -n 4: {logins}"
        )


def test_every_program_the_run_started_is_in_the_preflight_list(
    healthy: tuple[SuiteRun, Path, dict[str, int]],
) -> None:
    """The programs of every recorded command, as the transport ran it (bounded, through bash), are named
    in the lab's preflight list (and so installed by tools/install-system-deps.sh); leaving any one of
    them out of the list is caught."""
    _, recording, _ = healthy
    files = {path.stem: path.read_text() for path in sorted((recording / "nodes").glob("*.yaml"))}
    commands = [bounded_command(command, 30) for command in recorded_commands(files)]
    started = set().union(*map(programs_of, commands))
    assert {"ethtool", "ip", "ping", "ssh", "env", "timeout", "bash"} <= started, sorted(started)
    assert unlisted_programs(commands, required_tools()) == set()
    for program in started:
        assert unlisted_programs(commands, set(required_tools()) - {program}) == {program}


def test_replay_of_a_live_recording_is_identical_and_offline(
    site: Path, tmp_path: Path, healthy: tuple[SuiteRun, Path, dict[str, int]]
) -> None:
    live, recording, _ = healthy
    # An empty network namespace: no interface but a down loopback, so any connection attempt fails.
    replay = run_suite(
        site,
        tmp_path / "results",
        "--replay",
        str(recording),
        prefix=("unshare", "--net"),
    )
    assert replay.records, replay.output[-3000:]
    assert replay.outcomes() == live.outcomes(), replay.describe()
    assert replay.results_file.read_bytes() == live.results_file.read_bytes()


# ------------------------------------------------------------------------------------------ traffic faults


def test_rail_link_down_fails_the_link_and_the_pings_through_it(
    site: Path, tmp_path: Path, lab_faults: Faults
) -> None:
    lab_faults.link_down(FAULTY, rail=1)
    run = run_suite(
        site, tmp_path / "results", paths=(*CHEAP_FILES, SUITE / "test_connectivity.py")
    )
    assert_verdicts_except(run, {
        ("LNK-002", f"{FAULTY}/benic2p1"): {"failed"},
        ("NET-001", PAIR): {"failed"},
        ("NET-002", PAIR): {"failed"},
    })  # fmt: skip
    assert_message(run, "LNK-002", f"{FAULTY}/benic2p1", "link_detected")
    assert_message(run, "NET-001", PAIR, "loss_percent", "benic2p1 (172.30.1.2)")
    assert_message(
        run, "NET-002", PAIR, f"rail 1: {GOOD}/benic2p1 <-> {FAULTY}/benic2p1 100.0 % != 0", "loss_percent"
    )
    assert "rail 0" not in str(run.record("NET-002", PAIR)["message"])


def test_mtu_1500_fails_jumbo_frames_while_small_pings_pass(
    site: Path, tmp_path: Path, lab_faults: Faults
) -> None:
    lab_faults.mtu(FAULTY, rail=0, mtu=1500)
    run = run_suite(
        site, tmp_path / "results", paths=(*CHEAP_FILES, SUITE / "test_connectivity.py")
    )
    assert_verdicts_except(run, {
        ("LNK-005", f"{FAULTY}/benic1p1"): {"failed"},
        ("NET-002", PAIR): {"failed"},
    })  # fmt: skip
    assert_message(run, "NET-002", PAIR, f"rail 0: {GOOD}/benic1p1 <-> {FAULTY}/benic1p1")
    assert_message(run, "LNK-005", f"{FAULTY}/benic1p1", "1500", "9000")
    assert run.record("NET-001", PAIR)["outcome"] == "passed"


def test_wrong_routing_rule_fails_the_source_routing_check(
    site: Path, tmp_path: Path, lab_faults: Faults
) -> None:
    lab_faults.wrong_rule(FAULTY, rail=0)
    run = run_suite(
        site, tmp_path / "results", paths=(*CHEAP_FILES, SUITE / "test_connectivity.py")
    )
    assert_verdicts_except(run, {("HOST-007", f"{FAULTY}/benic1p1"): {"failed"}})
    assert_message(
        run, "HOST-007", f"{FAULTY}/benic1p1", "routing_problems", "172.30.0.2"
    )


# ------------------------------------------------------------------------------------------ SSH faults


def test_sshd_stopped_before_the_run_errors_that_nodes_items_only(
    site: Path, tmp_path: Path, lab_faults: Faults
) -> None:
    lab_faults.stop_sshd(FAULTY)
    run = run_suite(site, tmp_path / "results")
    assert_verdicts_except(run, errors(node_items(run, FAULTY)))
    assert node_items(run, FAULTY) and node_items(run, GOOD) - node_items(run, FAULTY)
    for check_id, item in node_items(run, FAULTY):
        assert_message(run, check_id, item, "transport", FAULTY, "unreachable")


def test_sshd_killed_during_the_run_errors_the_items_after_it(
    acceptance_lab: Lab, site: Path, tmp_path: Path, lab_faults: Faults
) -> None:
    marker = acceptance_lab.sshd(FAULTY).files.home / "probe-waiting"
    marker.unlink(missing_ok=True)
    killed = threading.Event()

    def kill_when_the_probe_waits() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not marker.exists():
            time.sleep(0.05)
        if marker.exists():
            lab_faults.kill_sshd(FAULTY, sessions=True)
            killed.set()

    watcher = threading.Thread(target=kill_when_the_probe_waits, daemon=True)
    watcher.start()
    run = run_suite(site, tmp_path / "results", paths=(PROBES / "probe_sshd_killed.py", SUITE),
                    env={"LAB_PROBE_NODE": FAULTY})  # fmt: skip
    watcher.join(timeout=5)
    assert killed.is_set(), run.output[-3000:]
    probe, suite_records = run.split_probe(FAULTY)
    assert probe["outcome"] in ("failed", "error"), probe
    after = node_items(suite_records, FAULTY)
    # HOST-008 runs on node01 only: it may reach its ssh probe to node02 and measure the refusal.
    expected = {**errors(after), ("HOST-008", PAIR): {"error", "failed"}}
    assert_verdicts_except(suite_records, expected)
    for check_id, item in after:
        measured = suite_records.record(check_id, item)["outcome"] == "failed"
        fragments = ("Connection refused",) if measured else ("transport", FAULTY)
        assert_message(suite_records, check_id, item, *fragments)
    assert not any(
        "sleep 60" in line for line in processes_in_node(acceptance_lab, FAULTY)
    )


def test_command_hanging_past_its_timeout_is_ended_on_the_node(
    acceptance_lab: Lab, site: Path, tmp_path: Path
) -> None:
    run = run_suite(site, tmp_path / "results", paths=(PROBES / "probe_hang.py", *CHEAP_FILES),
                    env={"LAB_PROBE_NODE": FAULTY})  # fmt: skip
    probe, rest = run.split_probe(FAULTY)
    assert probe["outcome"] == "failed", run.describe()
    assert probe["commands"] == [
        {"command": "sleep 617", "exit_code": 124, "node": FAULTY}
    ]
    assert "exit 124" in str(probe["message"])
    assert_verdicts_except(rest, {})
    assert not [
        line
        for line in processes_in_node(acceptance_lab, FAULTY)
        if "sleep 617" in line
    ]


def test_changed_host_key_is_refused_by_default(
    site: Path, tmp_path: Path, lab_faults: Faults
) -> None:
    lab_faults.change_host_key(FAULTY)
    refused = run_suite(site, tmp_path / "refused", paths=CHEAP_FILES)
    assert_verdicts_except(refused, errors(node_items(refused, FAULTY)))
    for check_id, item in node_items(refused, FAULTY):
        assert_message(refused, check_id, item, "host key", "changed")

    accepted = run_suite(
        site, tmp_path / "accepted", "--insecure-host-keys", paths=CHEAP_FILES
    )
    assert_verdicts_except(accepted, {})
