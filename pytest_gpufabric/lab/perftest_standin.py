"""Installs the perftest STAND-IN (``perftest_standin.sh``) on the namespace lab's nodes: it measures the pair
scheduler, never a fabric.

The lab's NICs are veth pairs without RDMA devices, so the real tool cannot run there. For the scheduling
benchmark, ``install`` puts the stand-in on each lab node's PATH as ``ib_write_bw`` (``~/perftest-standin/bin``,
PATH set in the node's ``~/.bashrc``, which bash reads for SSH commands). It behaves as perftest does towards
the plugin (see the script): the server listens on its ``-p`` port until its client has gone; the client
connects through the lab's leaf, holds the connection for a fixed time and prints a real captured
``ib_write_bw`` output (fixtures/outputs/perftest/SOURCES.md): S0 2.8.2 for a healthy pair, S0 5.1 FAQ 2
("Failed status 12") for a client whose server address ``inject_bad_pair`` listed in its node's
``~/perftest-standin/bad-servers``. A bash script (netcat listens, bash's ``/dev/tcp`` connects) starts in
milliseconds, so the benchmark measures the scheduler and the SSH transport, not an interpreter's start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_gpufabric.lab.lab import Lab

SCRIPT = Path(__file__).resolve().with_name("perftest_standin.sh")
SOURCE_CAPTURES = Path(__file__).resolve().parents[2] / "fixtures" / "outputs" / "perftest"
CAPTURES = {"healthy.txt": "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt",
            "failing.txt": "s0-5.1-faq2-ib_write_bw-failed-status-12.txt"}
HOME_DIR = "perftest-standin"
BAD_SERVERS = "bad-servers"
RUN_S = "run-s"


def install(lab: Lab, run_s: float) -> None:
    """Put the stand-in on every node's PATH as ``ib_write_bw``; each client holds its connection ``run_s``."""
    for node in lab.nodes:
        home = lab.sshd(node.name).files.home  # the node sees its home only (as /root)
        folder = home / HOME_DIR
        (folder / "bin").mkdir(parents=True, exist_ok=True)
        (folder / "captures").mkdir(exist_ok=True)
        tool = folder / "bin" / "ib_write_bw"
        tool.write_text(SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
        tool.chmod(0o755)
        for name, source in CAPTURES.items():
            (folder / "captures" / name).write_text((SOURCE_CAPTURES / source).read_text(encoding="utf-8"), encoding="utf-8")
        (folder / RUN_S).write_text(f"{run_s:g}\n", encoding="utf-8")
        (folder / BAD_SERVERS).write_text("", encoding="utf-8")
        (home / ".bashrc").write_text(f'export PATH="$HOME/{HOME_DIR}/bin:$PATH"\n', encoding="utf-8")


def inject_bad_pair(lab: Lab, node_a: str, node_b: str, rail: int) -> None:
    """Make the NIC pair of ``rail`` between two nodes fail both ways (each client prints the failing capture)."""
    address = {node.name: {nic.rail: str(nic.ipv4.ip) for nic in node.nics} for node in lab.nodes}
    for client, server in ((node_a, node_b), (node_b, node_a)):
        listed = lab.sshd(client).files.home / HOME_DIR / BAD_SERVERS
        listed.write_text(listed.read_text(encoding="utf-8") + address[server][rail] + "\n", encoding="utf-8")
