"""Labs coexist, leave nothing behind (also when their process is interrupted or killed), and describe
themselves as a valid site.yaml."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from pytest_gpufabric.inventory import load_inventory
from pytest_gpufabric.lab import Lab, sweep_stale
from pytest_gpufabric.lab.cli import READY_LINE
from pytest_gpufabric.lab.iproute import ip, list_namespaces, namespace_pids
from pytest_gpufabric.lab.registry import lab_dir
from pytest_gpufabric.lab.sweep import lab_namespaces

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[2]
CLI_TIMEOUT_S = 30


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie or a vanished process is not alive)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] != "Z"


def _assert_gone(lab_id: str, sshd_pids: list[int]) -> None:
    assert lab_namespaces(lab_id) == []
    assert not [ns for ns in list_namespaces() if lab_id in ns]
    assert ip("link", "show", "dev", f"gfl-{lab_id}", check=False).returncode != 0
    assert not lab_dir(lab_id).exists()
    assert [pid for pid in sshd_pids if _alive(pid)] == []


def test_teardown_leaves_no_namespace_no_sshd_no_files(lab_host: None) -> None:
    with Lab(nodes=2, rails=1) as small:
        lab_id = small.lab_id
        pids = [
            pid
            for node in small.nodes
            if (pid := small.sshd(node.index).pid) is not None
        ]
        assert len(pids) == 2 and all(_alive(pid) for pid in pids)
        assert len(lab_namespaces(lab_id)) == 4
        small.ssh(0, "true")
    assert small.teardown_s is not None
    _assert_gone(lab_id, pids)


def test_two_labs_coexist_on_distinct_management_subnets(lab: Lab) -> None:
    with Lab(nodes=1, rails=1) as second:
        assert second.lab_id != lab.lab_id
        assert second.plan.mgmt_subnet != lab.plan.mgmt_subnet
        assert second.ssh(0, "hostname").stdout.strip() == "node01"
        assert lab.ssh(0, "hostname").stdout.strip() == "node01"
        assert lab.nodes[0].mgmt_ip != second.nodes[0].mgmt_ip


def test_a_failing_body_still_tears_the_lab_down(lab_host: None) -> None:
    with (
        pytest.raises(RuntimeError, match="test body failed"),
        Lab(nodes=1, rails=1) as failing,
    ):
        lab_id = failing.lab_id
        pids = [failing.sshd(0).pid or -1]
        raise RuntimeError("test body failed")
    _assert_gone(lab_id, pids)


@contextmanager
def _cli_lab() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python -m pytest_gpufabric.lab up`` in a child process; yields it and its lab id once ready."""
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest_gpufabric.lab", "up", "--nodes", "2", "--rails", "1"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        first = child.stdout.readline()
        assert first.startswith(READY_LINE), first + child.stdout.read()
        yield child, first.split("id ")[1].split(",")[0]
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=CLI_TIMEOUT_S)
        if child.stdout:
            child.stdout.close()


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"]
)
def test_an_interrupted_cli_lab_removes_itself(
    lab_host: None, sig: signal.Signals
) -> None:
    with _cli_lab() as (child, lab_id):
        namespaces = lab_namespaces(lab_id)
        assert len(namespaces) == 4
        pids = [pid for ns in namespaces for pid in namespace_pids(ns)]
        assert (
            len(pids) >= 2
        )  # one sshd per node (and maybe the child serving the readiness probe)
        child.send_signal(sig)  # at once: the CLI holds its stop signals before it announces the lab
        assert child.wait(timeout=CLI_TIMEOUT_S) == 0
    _assert_gone(lab_id, pids)


def test_sweep_removes_a_killed_owners_lab_and_spares_living_ones(lab: Lab) -> None:
    with _cli_lab() as (child, lab_id):
        child.kill()
        child.wait(timeout=CLI_TIMEOUT_S)
        namespaces = lab_namespaces(lab_id)
        assert len(namespaces) == 4  # nothing could clean up after SIGKILL
        pids = [pid for ns in namespaces for pid in namespace_pids(ns)]
        assert (
            len([pid for pid in pids if _alive(pid)]) >= 2
        )  # the orphaned sshds live on
    removed = sweep_stale()
    assert lab_id in removed
    assert lab.lab_id not in removed
    _assert_gone(lab_id, pids)
    assert lab.ssh(0, "true").returncode == 0


def test_write_inventory_is_a_valid_site_yaml_describing_the_live_lab(
    lab: Lab, tmp_path: Path
) -> None:
    site = lab.write_inventory(tmp_path / "site.yaml")
    inventory = load_inventory(site, known_profiles=["lab-linux"])
    document = yaml.safe_load(site.read_text())
    assert document["profile"] == "lab-linux"
    assert document["defaults"]["platform"] == {
        "gpu_vendor": "amd",
        "gpu_model": "none",
        "nic_vendor": "broadcom",
        "deployment": "baremetal",
    }
    assert document["defaults"]["ssh"]["known_hosts"] == str(lab.known_hosts)
    assert len(inventory.nodes) == len(lab.nodes)
    for entry in document["nodes"]:
        done = lab.ssh(
            entry["name"], "hostname; ip -o -4 addr show; ip -4 route show table all"
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0] == entry["name"]
        assert f"inet {entry['address']}/24" in done.stdout
        for nic in entry["nics"]:
            assert f"{nic['netdev']}    inet {nic['ipv4']} " in done.stdout
            route = f"default via {nic['gateway']} dev {nic['netdev']} table {nic['route_table']}"
            assert route in done.stdout
            speed = lab.exec_in(
                entry["name"], ["cat", f"/sys/class/net/{nic['netdev']}/speed"]
            ).stdout
            assert nic["speed_gbps"] * 1000 == int(speed)


def test_cli_down_removes_a_named_lab_and_refuses_to_guess(lab_host: None) -> None:
    cli = [sys.executable, "-m", "pytest_gpufabric.lab", "down"]
    refused = subprocess.run(
        cli,
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
    )
    assert refused.returncode == 2
    assert "--all" in refused.stderr
    with Lab(nodes=1, rails=1) as doomed:
        pids = [doomed.sshd(0).pid or -1]
        done = subprocess.run(
            [*cli, doomed.lab_id],
            check=False,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT_S,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"removed labs: {doomed.lab_id}"
        _assert_gone(doomed.lab_id, pids)
    assert (
        doomed.teardown_s is not None
    )  # the owner's own teardown copes with the lab being gone
