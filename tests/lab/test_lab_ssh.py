"""Every node is reachable over SSH, only with the lab's key and only with the right host key."""

from __future__ import annotations

import subprocess
from pathlib import Path

import paramiko
import pytest

from pytest_gpufabric.lab import Lab
from pytest_gpufabric.lab.sshd import generate_key

pytestmark = pytest.mark.lab


def test_openssh_runs_commands_inside_each_node(lab: Lab) -> None:
    for node in lab.nodes:
        done = lab.ssh(node.index, "hostname; ip -o -4 addr show")
        assert done.returncode == 0, done.stderr
        hostname, *addresses = done.stdout.splitlines()
        assert hostname == node.name
        text = "\n".join(addresses)
        for nic in node.nics:
            assert f"{nic.netdev}    inet {nic.ipv4} " in text
        assert f"mgmt0    inet {node.mgmt_ip}/24 " in text


def test_paramiko_and_fabric_connect_with_strict_host_keys(lab: Lab) -> None:
    node = lab.nodes[-1]
    client = lab.paramiko_client(node.name)
    try:
        _, stdout, _ = client.exec_command("hostname")
        assert stdout.read().decode().strip() == node.name
        assert stdout.channel.recv_exit_status() == 0
    finally:
        client.close()
    with lab.fabric_connection(node.name) as connection:
        result = connection.run(
            "ip -o -4 addr show dev benic1p1", hide=True, in_stream=False
        )
        assert str(node.nic(0).ipv4) in result.stdout


def test_sshd_listens_only_on_the_management_address(lab: Lab) -> None:
    node = lab.nodes[0]
    done = lab.exec_in(node.index, ["ss", "-H", "-ltn"])
    assert done.returncode == 0, done.stderr
    listeners = [line.split()[3] for line in done.stdout.splitlines()]
    assert listeners == [f"{node.mgmt_ip}:22"]


def test_a_key_the_lab_did_not_issue_is_refused(lab: Lab, tmp_path: Path) -> None:
    stranger = generate_key(tmp_path / "stranger", "not the lab key")
    argv = lab.ssh_argv(0, "true")
    argv[argv.index(str(lab.ssh_key))] = str(stranger)
    refused = subprocess.run(
        argv, capture_output=True, text=True, timeout=30, check=False
    )
    assert refused.returncode == 255
    assert "Permission denied (publickey)" in refused.stderr


def test_password_authentication_is_not_offered(lab: Lab) -> None:
    client = paramiko.SSHClient()
    client.load_host_keys(str(lab.known_hosts))
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    with pytest.raises(paramiko.BadAuthenticationType) as caught:
        client.connect(
            str(lab.nodes[0].mgmt_ip),
            username="root",
            password="root",
            look_for_keys=False,
            allow_agent=False,
            timeout=10,
        )
    client.close()
    assert caught.value.allowed_types == ["publickey"]


def test_an_unknown_host_is_rejected_without_known_hosts(
    lab: Lab, tmp_path: Path
) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    argv = [
        a.replace(str(lab.known_hosts), str(empty)) for a in lab.ssh_argv(0, "true")
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 255
    assert "Host key verification failed" in done.stderr
