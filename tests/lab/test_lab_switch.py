"""A live run against switches reached over real SSH (sshd's in a namespace answering the demo switches'
recorded outputs) passes the same switch checks as the replay, and no configuration command reaches them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from switchkit import SwitchLab, switch_lab

from pytest_gpufabric.lab.preflight import check_can_create_namespaces
from pytest_gpufabric.lab import LabUnavailable
from pytest_gpufabric.recording import RecordingStore, Scrubber
from pytest_gpufabric.switches.readonly import ConfigurationRefused, is_read_only
from pytest_gpufabric.transport.ssh import SshEndpoint, SshTransport
from pytest_gpufabric.transport.switch_guard import ReadOnlySwitches

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
SUITE = "suites/acceptance/test_switches.py"
SWITCH_CHECKS = [f"{SUITE}::{name}" for name in (
    "test_pfc_no_drop_on_roce_priority", "test_ecn_on_roce_queue", "test_dscp_classification", "test_port_mtu",
    "test_pfc_watchdog", "test_host_port_link", "test_no_pause_storm_or_drops")]


def recorded_outputs() -> dict[str, dict[str, str]]:
    """Each demo switch's recorded output of every command (the episode any item gets first)."""
    site = yaml.safe_load((DEMO / "site.yaml").read_text(encoding="utf-8"))
    store = RecordingStore(DEMO, Scrubber())
    served: dict[str, dict[str, str]] = {}
    for switch in site["switches"]:
        commands = store.load_node(switch["name"])
        served[switch["name"]] = {command: store.find(switch["name"], command).stdout for command in commands}
    return served


@pytest.fixture(scope="module")
def switches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SwitchLab]:
    try:
        check_can_create_namespaces()
    except LabUnavailable as exc:
        pytest.skip(f"no namespace lab on this machine: {exc}")
    with switch_lab(tmp_path_factory.mktemp("switch-lab"), recorded_outputs()) as lab:
        yield lab


def live_site(lab: SwitchLab, path: Path) -> Path:
    """The demo inventory with its switches at the lab's addresses, host keys checked against the lab's."""
    site = yaml.safe_load((DEMO / "site.yaml").read_text(encoding="utf-8"))
    for switch in site["switches"]:
        switch["address"] = str(lab.switches[switch["name"]].address)
        switch["ssh"] = {"user": "root", "port": 22, "key": str(lab.client_key), "known_hosts": str(lab.known_hosts),
                         "connect_timeout_s": 5, "command_timeout_s": 20}
    path.write_text(yaml.safe_dump(site, sort_keys=False), encoding="utf-8")
    return path


def outcomes(results: Path, *args: str) -> dict[str, tuple[str, Any]]:
    proc = subprocess.run([sys.executable, "-m", "pytest", *SWITCH_CHECKS, *args, f"--gpufabric-results={results}",
                           "-p", "no:cacheprovider", "-q", "-n", "0"], cwd=REPO, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]  # completed, with the injected failures
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    return {r["node_id"]: (r["outcome"], r.get("measured")) for r in records}


@pytest.fixture(scope="module")
def live_work(switches: SwitchLab, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with the live site (site.yaml) and the recording the live run made (recording/)."""
    work = tmp_path_factory.mktemp("live")
    live_site(switches, work / "site.yaml")
    return work


@pytest.fixture(scope="module")
def live_run(live_work: Path) -> dict[str, tuple[str, Any]]:
    return outcomes(live_work / "results", f"--cluster={live_work / 'site.yaml'}", f"--record={live_work / 'recording'}")


def test_the_live_run_passes_the_same_checks_as_the_replay(live_run: dict[str, tuple[str, Any]], tmp_path: Path) -> None:
    replayed = outcomes(tmp_path, f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}")
    assert live_run == replayed
    assert {outcome for outcome, _ in live_run.values()} == {"passed", "failed", "skipped"}


def test_the_live_run_recorded_the_switches_and_replays_alike(live_run: dict[str, tuple[str, Any]], live_work: Path,
                                                               tmp_path: Path) -> None:
    recorded = sorted(path.stem for path in (live_work / "recording" / "nodes").glob("*.yaml"))
    assert recorded == ["leaf1", "leaf2", "leaf3", "leaf4"]  # only switches were asked
    assert outcomes(tmp_path, f"--cluster={live_work / 'site.yaml'}", f"--replay={live_work / 'recording'}") == live_run


def test_every_command_the_switches_received_is_a_read_only_form(switches: SwitchLab, live_run: dict[str, Any]) -> None:
    received = {name: switch.received() for name, switch in switches.switches.items()}
    assert all(received.values()), "every switch was asked"
    os_of = {s["name"]: s["os"] for s in yaml.safe_load((DEMO / "site.yaml").read_text(encoding="utf-8"))["switches"]}
    for name, entries in received.items():
        assert [e for e in entries if not (e["served"] and is_read_only(os_of[name], str(e["command"])))] == []


def raw_transport(switches: SwitchLab, name: str) -> SshTransport:
    """SSH to one lab switch without the read-only guard (what reaches its account is the account's to refuse)."""
    leaf = switches.switches[name]
    return SshTransport({name: SshEndpoint(address=str(leaf.address), user="root", port=22, key=str(switches.client_key),
                                           known_hosts=str(switches.known_hosts), connect_timeout_s=5, sudo=False,
                                           remote_shell=False)})


def test_the_switch_account_refuses_a_configuration_command(switches: SwitchLab) -> None:
    leaf = switches.switches["leaf1"]
    raw = raw_transport(switches, "leaf1")
    try:
        refused = raw.run("leaf1", "configure terminal", 10)
        guarded = ReadOnlySwitches(raw, {"leaf1": "arista"})
        before = len(leaf.received())
        with pytest.raises(ConfigurationRefused):
            guarded.run("leaf1", "priority-flow-control priority 3 no-drop", 10)
        assert len(leaf.received()) == before  # the guard refused it before anything was sent
        served = guarded.run("leaf1", "show running-config", 10)
    finally:
        raw.close()
    assert refused.exit_code == 1 and "refused" in refused.stderr
    assert served.exit_code == 0 and "priority-flow-control" in served.stdout


def test_the_junos_leaf_is_served_and_guarded(switches: SwitchLab) -> None:
    raw = raw_transport(switches, "leaf4")
    try:
        guarded = ReadOnlySwitches(raw, {"leaf4": "juniper"})
        with pytest.raises(ConfigurationRefused):
            guarded.run("leaf4", "set class-of-service forwarding-classes class NO-LOSS queue-num 4", 10)
        served = guarded.run("leaf4", "show configuration", 10)
    finally:
        raw.close()
    assert served.exit_code == 0 and "congestion-notification-profile" in served.stdout


def test_the_switches_serve_their_lldp_and_mac_tables(switches: SwitchLab) -> None:
    # CAB-001's reads over real SSH, through the read-only guard: the miswired NIC of the demo (node02/bnxt_re6, planned
    # on leaf3 Ethernet2/1) is leaf1's LLDP neighbor on Ethernet17/1; node04 (no lldpd) is in the MAC tables only.
    from pytest_gpufabric.checks.cabling import mac_index, neighbor_index
    from pytest_gpufabric.switches.neighbors import neighbor_reads

    os_of = {s["name"]: s["os"] for s in yaml.safe_load((DEMO / "site.yaml").read_text(encoding="utf-8"))["switches"]}
    lldp, macs = {}, {}
    for name, switch_os in os_of.items():
        raw = raw_transport(switches, name)
        guarded = ReadOnlySwitches(raw, {name: switch_os})
        reads = neighbor_reads()[switch_os]
        try:
            lldp[name] = neighbor_index(reads.lldp[1](guarded.run(name, reads.lldp[0], 10).stdout))
            macs[name] = mac_index(reads.mac_table[1](guarded.run(name, reads.mac_table[0], 10).stdout))
        finally:
            raw.close()
    assert [(e.port, e.system_name) for e in lldp["leaf1"].by_mac["7c:c2:55:02:06:d5"]] == [("Ethernet17/1", "node02")]
    assert "7c:c2:55:02:06:d5" not in lldp["leaf3"].by_mac
    assert not any(e.system_name == "node04" for index in lldp.values() for entries in index.by_mac.values() for e in entries)
    assert [e.port for e in macs["leaf2"]["7c:c2:55:04:04:9f"]] == ["Ethernet24"]
    assert [e.port for e in macs["leaf4"]["7c:c2:55:04:07:e7"]] == ["et-0/0/4:0"]
