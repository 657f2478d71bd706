"""The plugin seen from pytest: options, ids, skips, usage errors, verdicts, results file, xdist."""

from __future__ import annotations

import json

import pytest

from sitekit import Site


def test_options_live_in_one_group(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--help")
    text = result.stdout.str()
    group = text.split("GPU fabric acceptance (pytest-gpufabric):", 1)[1]
    for option in ("--cluster", "--record", "--record-mode", "--replay", "--scrub", "--thresholds-dir", "--gpufabric-results"):
        assert option in group


def test_ids_come_from_inventory_names_and_are_stable(site: Site) -> None:
    site.healthy_recording()
    before = site.run("--collect-only", "-q").stdout.lines
    assert "test_checks.py::test_numa[node01]" in before
    assert "test_checks.py::test_mtu[node02/bnxt_re0]" in before
    site.data["nodes"].insert(0, {**site.data["nodes"][0], "name": "node00", "address": "10.0.0.100",
                                  "nics": [{**site.data["nodes"][0]["nics"][0], "ipv4": "192.168.1.100/24"}]})
    after = site.run("--collect-only", "-q").stdout.lines
    kept = [line for line in before if "::" in line]
    assert set(kept) <= set(after)
    assert "test_checks.py::test_numa[node00]" in after


def test_replay_passes_and_fails_with_measured_expected_source(site: Site) -> None:
    site.healthy_recording(numa={"node02": "1\n"}, mtu={"node01": 1500})
    result = site.run("--replay", str(site.recording), "-rA")
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    assert "HOST-002" in out and "numa_balancing = 1" in out and "expected: == 0" in out and "S0 2.6 item 15" in out
    assert "mtu = 1500 bytes" in out
    records = {r["node_id"]: r for r in site.results()}
    numa = records["test_checks.py::test_numa[node02]"]
    assert (numa["check_id"], numa["outcome"], numa["measured"], numa["source"]) == ("HOST-002", "failed", 1, "S0 2.6 item 15")
    assert records["test_checks.py::test_numa[node01]"]["outcome"] == "passed"


def test_platform_mismatch_is_skipped_with_reason(site: Site) -> None:
    site.data["nodes"][1]["platform"] = {"nic_vendor": "other"}
    site.healthy_recording()
    result = site.run("--replay", str(site.recording), "-rs")
    result.assert_outcomes(passed=3, skipped=1)
    assert "LNK-005 applies to broadcom; not to amd/baremetal machines" in result.stdout.str()  # one reason per kind
    skipped = [record["node_id"] for record in site.results() if record["outcome"] == "skipped"]
    assert skipped == ["test_checks.py::test_mtu[node02/bnxt_re0]"]


def test_missing_threshold_is_an_error_never_a_pass(site: Site) -> None:
    (site.pytester.path / "thresholds" / "p.yaml").write_text("profile: p\nexpectations: {}\n")
    site.healthy_recording()
    result = site.run("--replay", str(site.recording))
    result.assert_outcomes(errors=4)
    assert "no expectation HOST-002.numa_balancing" in result.stdout.str()
    assert {r["outcome"] for r in site.results()} == {"error"}


def test_missing_measurement_is_an_error(site: Site) -> None:
    site.record({n["name"]: {"cat /proc/sys/kernel/numa_balancing": "", **{f"ip -o link show dev {nic['netdev']}": "" for nic in n["nics"]}}
                 for n in site.data["nodes"]})
    result = site.run("--replay", str(site.recording), "-k", "numa", "-v")
    result.assert_outcomes(errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "MeasurementMissing" in result.stdout.str()
    result.stdout.fnmatch_lines(["*test_numa?node01? NOT MEASURED*", "*0 failed, 2 not measured, 0 passed, 0 skipped*"])
    assert all(r["outcome"] == "error" for r in site.results())


def test_failed_and_unmeasured_are_counted_apart_with_xdist(site: Site) -> None:
    site.record({"node01": {"cat /proc/sys/kernel/numa_balancing": "1\n"}, "node02": {"cat /proc/sys/kernel/numa_balancing": ""}})
    result = site.run("--replay", str(site.recording), "-k", "numa", "-n", "2")
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(["*1 failed, 1 not measured, 0 passed, 0 skipped*"])
    assert sorted(r["outcome"] for r in site.results()) == ["error", "failed"]


def test_replay_without_matching_command_names_node_command_and_closest(site: Site) -> None:
    site.record({"node01": {"ip -o link show dev eth9": "x"}, "node02": {}})
    result = site.run("--replay", str(site.recording), "-k", "mtu and node01")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "node01" in out and "ip -o link show dev eth1" in out and "ip -o link show dev eth9" in out


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["--replay", "x", "--record", "y"], "--record and --replay exclude each other"),
        (["--command-timeout", "0"], "--command-timeout must be positive"),
    ],
    ids=["record-and-replay", "zero-timeout"],
)
def test_contradictory_options_are_usage_errors(site: Site, args: list[str], phrase: str) -> None:
    result = site.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert phrase in result.stderr.str()
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_broken_inventory_is_a_usage_error_without_traceback(site: Site) -> None:
    site.data["nodes"][0]["nics"][0]["gpu"] = 7
    result = site.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "site.yaml:" in err and "gpu" in err
    assert "Traceback" not in err + result.stdout.str()


def test_unknown_profile_is_a_usage_error(site: Site) -> None:
    site.data["profile"] = "nope"
    result = site.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "nope" in result.stderr.str()


def test_a_live_run_whose_ssh_files_cannot_be_read_is_a_usage_error(site: Site) -> None:
    for node in site.data["nodes"]:
        node["ssh"] = {"user": "root", "key": "~/absent/id_ed25519", "known_hosts": str(site.pytester.path / "absent")}
    result = site.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    more = f"and {len(site.data['nodes']) - 1} more"
    assert f"ssh.key ~/absent/id_ed25519 (of node01 {more}) cannot be read on this controller: No such file" in err
    assert f"absent (of node01 {more}) cannot be read on this controller: No such file" in err
    assert "Traceback" not in err + result.stdout.str()
    insecure = site.run("--insecure-host-keys")
    assert "ssh.key" in insecure.stderr.str() and "ssh.known_hosts" not in insecure.stderr.str()
    assert site.run("--collect-only").ret == pytest.ExitCode.OK  # nothing connects
    site.healthy_recording()
    assert site.run("--replay", str(site.recording)).ret == pytest.ExitCode.OK  # a replay needs neither file


def test_scope_fixture_without_cluster_is_a_usage_error(site: Site) -> None:
    result = site.pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--cluster" in result.stderr.str()


def test_check_scope_must_match_catalog(site: Site) -> None:
    site.pytester.makepyfile(test_wrong='''
import pytest
@pytest.mark.check("LNK-005")
def test_wrong(node, gpufabric):
    pass
''')
    site.healthy_recording()
    result = site.run("--replay", str(site.recording))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "LNK-005 has scope 'nic'" in result.stderr.str()


def test_xdist_gives_the_same_results_file(site: Site) -> None:
    site.healthy_recording(numa={"node02": "1\n"}, mtu={"node01": 1500})
    site.run("--replay", str(site.recording), "-n", "0")
    serial = (site.pytester.path / "results" / "results.jsonl").read_text()
    result = site.run("--replay", str(site.recording), "-n", "2")
    result.assert_outcomes(passed=2, failed=2)
    assert (site.pytester.path / "results" / "results.jsonl").read_text() == serial


NODE_PAIRS_WATCH = '''
import json
from pytest_gpufabric.plugin import SESSION_KEY


def pytest_unconfigure(config):
    with open("pairs.json", "w") as out:
        json.dump({"listed": config.stash[SESSION_KEY]._node_pairs is not None}, out)
'''


def test_node_pairs_are_listed_only_for_node_pair_checks(site: Site) -> None:
    """Without a node-pair check in the paths collected, the selected node pairs are never listed (the policy
    ``all`` of 20,000 nodes is 200 million of them); the schedule summary says so."""
    site.pytester.makepyfile(pairwatch=NODE_PAIRS_WATCH)
    site.healthy_recording()
    result = site.run("--replay", str(site.recording), "-p", "pairwatch")
    result.assert_outcomes(passed=4)
    assert "pair policy all: no node-pair check in the paths collected" in result.stdout.str()
    assert json.loads((site.pytester.path / "pairs.json").read_text()) == {"listed": False}
