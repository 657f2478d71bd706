"""A STAND-IN for perftest's ``ib_write_bw`` in the namespace lab: it measures the pair scheduler, never a fabric.

The lab's NICs are veth pairs without RDMA devices, so the real tool cannot run there. For the scheduling
benchmark, ``install`` puts this program on each lab node's PATH as ``ib_write_bw`` (``~/perftest-standin``,
PATH set in the node's ``~/.bashrc``, which bash reads for SSH commands). It behaves as perftest does towards
the plugin: without a peer address it is the server and listens on its ``-p`` port (the plugin waits for that
port); with one it is the client, connects to the server's address and port through the lab's leaf, holds the
connection for a fixed time, prints a real captured ``ib_write_bw`` output and exits; the server prints the
same when the client has gone. The captures are real (fixtures/outputs/perftest/SOURCES.md): S0 2.8.2 for a
healthy pair; S0 5.1 FAQ 2 ("Failed status 12") for a client whose server address ``inject_bad_pair`` listed
in its node's ``~/perftest-standin/bad-servers``.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_gpufabric.lab.lab import Lab

SOURCE_CAPTURES = Path(__file__).resolve().parents[2] / "fixtures" / "outputs" / "perftest"
CAPTURES = Path(__file__).resolve().parent / "captures"  # next to the copy installed in a node's home
HEALTHY = "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt"
FAILING = "s0-5.1-faq2-ib_write_bw-failed-status-12.txt"
HOME_DIR = "perftest-standin"
BAD_SERVERS = "bad-servers"
SLEEP_ENV = "PERFTEST_STANDIN_SLEEP_S"
FLAGS_WITH_VALUE = {"-d", "-p", "-x", "-q", "-D", "-s", "-n", "-m", "-i", "-c", "-t", "-Q", "-l"}
ACCEPT_TIMEOUT_S = 300.0
CONNECT_RETRY_S = 10.0


def install(lab: Lab, sleep_s: float) -> None:
    """Put the stand-in on every node's PATH as ``ib_write_bw``; each run holds its connection ``sleep_s``."""
    for node in lab.nodes:
        home = lab.sshd(node.name).files.home
        tool = home / HOME_DIR / "bin" / "ib_write_bw"
        tool.parent.mkdir(parents=True, exist_ok=True)
        program = home / HOME_DIR / Path(__file__).name  # the node sees its home only (as /root)
        program.write_text(Path(__file__).read_text(encoding="utf-8"), encoding="utf-8")
        (home / HOME_DIR / "captures").mkdir(exist_ok=True)
        for name in (HEALTHY, FAILING):
            (home / HOME_DIR / "captures" / name).write_text((SOURCE_CAPTURES / name).read_text(encoding="utf-8"), encoding="utf-8")
        tool.write_text(f"#!/bin/sh\n# STAND-IN for perftest (pair scheduler benchmark), see {program.name}\n"
                        f"{SLEEP_ENV}={sleep_s:g} exec python3 \"$HOME/{HOME_DIR}/{program.name}\" \"$@\"\n",
                        encoding="utf-8")
        tool.chmod(0o755)
        (home / HOME_DIR / BAD_SERVERS).write_text("", encoding="utf-8")
        (home / ".bashrc").write_text(f'export PATH="$HOME/{HOME_DIR}/bin:$PATH"\n', encoding="utf-8")


def inject_bad_pair(lab: Lab, node_a: str, node_b: str, rail: int) -> None:
    """Make the NIC pair of ``rail`` between two nodes fail both ways (each client prints the failing capture)."""
    address = {node.name: {nic.rail: str(nic.ipv4.ip) for nic in node.nics} for node in lab.nodes}
    for client, server in ((node_a, node_b), (node_b, node_a)):
        listed = lab.sshd(client).files.home / HOME_DIR / BAD_SERVERS
        listed.write_text(listed.read_text(encoding="utf-8") + address[server][rail] + "\n", encoding="utf-8")


def _port_and_peer(args: list[str]) -> tuple[int, str | None]:
    port, peer, index = 18515, None, 0
    while index < len(args):
        arg = args[index]
        if arg in FLAGS_WITH_VALUE:
            if arg == "-p":
                port = int(args[index + 1])
            index += 2
            continue
        if not arg.startswith("-"):
            ipaddress.ip_address(arg)  # the only positional argument: the server's address
            peer = arg
        index += 1
    return port, peer


def _serve(port: int) -> str:
    with socket.create_server(("0.0.0.0", port), reuse_port=False) as server:
        server.settimeout(ACCEPT_TIMEOUT_S)
        connection, _ = server.accept()
        with connection:
            while connection.recv(4096):
                pass
    return (CAPTURES / HEALTHY).read_text(encoding="utf-8")


def _connect(peer: str, port: int, sleep_s: float) -> str:
    deadline = time.monotonic() + CONNECT_RETRY_S
    while True:
        try:
            connection = socket.create_connection((peer, port), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    with connection:
        time.sleep(sleep_s)
    bad = (Path.home() / HOME_DIR / BAD_SERVERS).read_text(encoding="utf-8").split()
    return (CAPTURES / (FAILING if peer in bad else HEALTHY)).read_text(encoding="utf-8")


def main(args: list[str]) -> int:
    port, peer = _port_and_peer(args)
    sleep_s = float(os.environ.get(SLEEP_ENV, "1"))
    sys.stdout.write(_serve(port) if peer is None else _connect(peer, port, sleep_s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
