"""The many-node loopback target: one SSH server answering for more node names than one sshd can listen on."""

from __future__ import annotations

import resource
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_gpufabric.inventory import load_inventory
from pytest_gpufabric.lab.loopback_target import LoopbackTarget
from pytest_gpufabric.transport.factory import live_transport

NODES = 300  # above OpenSSH's 256 listen sockets of one sshd


@pytest.fixture(scope="module")
def target() -> LoopbackTarget:
    with LoopbackTarget(NODES, rails=2) as up:
        yield up
    assert up.server_cpu_s is not None and up.server_cpu_s > 0


def test_every_node_answers_under_its_own_name_with_host_keys_checked(target: LoopbackTarget, tmp_path: Path) -> None:
    inventory = load_inventory(target.write_inventory(tmp_path / "site.yaml"), ["mi300x-thor2"])
    assert len(inventory.nodes) == NODES and {len(node.nics) for node in inventory.nodes} == {2}
    transport = live_transport(inventory, verify_host_keys=True)
    names = [node.name for node in inventory.nodes]
    try:
        with ThreadPoolExecutor(32) as pool:
            results = list(pool.map(lambda name: transport.run(name, 'echo "$GPUFABRIC_NODE $HOME"', 30), names))
    finally:
        transport.close()
    for name, result in zip(names, results):
        assert result.exit_code == 0, result.stderr
        assert result.stdout.split()[0] == name and result.stdout.split()[1].endswith(f"/nodes/{name}")


CONNECT_ALL = """
import sys
from concurrent.futures import ThreadPoolExecutor
from pytest_gpufabric.inventory import load_inventory
from pytest_gpufabric.transport.factory import live_transport
inventory = load_inventory(sys.argv[1], ["mi300x-thor2"])
transport = live_transport(inventory, verify_host_keys=True)
with ThreadPoolExecutor(64) as pool:
    results = list(pool.map(lambda node: transport.run(node.name, "sleep 0.2; echo ok", 30), inventory.nodes))
transport.close()
print(sum(result.stdout == "ok\\n" for result in results), "of", len(results))
"""


def test_a_transport_to_every_node_raises_a_low_open_files_limit(target: LoopbackTarget, tmp_path: Path) -> None:
    """300 connections and 64 commands at once need more than a soft limit of 256 open files: the transport raises
    the limit (up to the hard one) before it connects, so no node fails with "Too many open files"."""
    site = target.write_inventory(tmp_path / "site.yaml")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]  # ~500 open files are enough here: any common hard limit

    def low_soft_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    done = subprocess.run([sys.executable, "-c", CONNECT_ALL, str(site)], capture_output=True, text=True, timeout=300,
                          preexec_fn=low_soft_limit)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"{NODES} of {NODES}"


def test_stand_ins_answer_at_once_in_the_real_tools_formats(target: LoopbackTarget, tmp_path: Path) -> None:
    inventory = load_inventory(target.write_inventory(tmp_path / "site.yaml"), ["mi300x-thor2"])
    transport = live_transport(inventory, verify_host_keys=True)
    try:
        perftest = transport.run("node0007", "ib_write_bw -d bnxt_re0 -p 18516", 30)
        fping = transport.run("node0007", "fping -q -c 5 -S 10.100.0.7 10.100.0.8 10.100.0.9 2>&1", 30)
        peer = transport.run("node0007", "ssh -o BatchMode=yes 127.0.0.9 true; echo $?", 30)
        missing = transport.run("node0007", "no-such-program-here", 30)
    finally:
        transport.close()
    assert "BW average[Gb/sec]" in perftest.stdout
    assert fping.stdout.splitlines() == [f"10.100.0.{n} : xmt/rcv/%loss = 5/5/0%, min/avg/max = 0.010/0.010/0.010" for n in (8, 9)]
    assert peer.stdout.strip() == "0"
    assert missing.exit_code == 127  # everything else is the real machine's (a real bash)


def test_a_second_target_takes_other_addresses(target: LoopbackTarget) -> None:
    with LoopbackTarget(3, rails=1) as other:
        assert not set(other.addresses) & set(target.addresses) or other.port != target.port
