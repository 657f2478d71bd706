"""The many-node loopback target: one SSH server on this machine answering for 1,024 (or more) node names.

    with LoopbackTarget(nodes=1024, rails=8) as target:
        site = target.write_inventory(tmp_path / "site.yaml")     # mi300x-thor2 shape, 8 GPUs and R NICs a node
        ...                                                         # pytest --cluster=site ... reaches every node
    target.server_cpu_s                                             # what the server and its commands cost

Each node is one loopback address (127.X.<hi>.<lo>; Linux routes all of 127.0.0.0/8 to ``lo``) on one port of
one server process (``loopback_server``, asyncssh): host key checked (the target writes ``known_hosts``),
public-key login with the target's own key. Commands run for real in ``bash -c`` in the node's home directory,
with STAND-INS first on ``PATH`` that answer at once (``loopback_standins/``: ``ib_write_bw`` prints a real
captured output, ``fping``/``ping`` report every probe answered, ``ssh`` to a peer succeeds). It measures what a
controller spends on many nodes (connections, commands, items), never a fabric.

Nothing needs root. The server is a child process of its own, so its CPU (and its commands') is read apart from
the controller's: ``server_cpu_s`` once the target is down (``os.wait4``).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import yaml

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.sshd import generate_key, public_key_line
from pytest_gpufabric.lab.synthetic_site import PROFILE, node_name, synthesize

if TYPE_CHECKING:
    from typing_extensions import Self

STANDINS = Path(__file__).resolve().with_name("loopback_standins")
PERFTEST_CAPTURE = Path(__file__).resolve().parents[2] / "fixtures" / "outputs" / "perftest" / "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt"
MAX_NODES = 60_000  # 240 addresses a /24 of one 127.X.0.0/16
STOP_TIMEOUT_S = 10.0
BIND_ATTEMPTS = 5


def node_address(second_octet: int, index: int) -> str:
    """The loopback address of node ``index`` (0-based): 127.X.<hi>.<lo>, <lo> in 1..240."""
    high, low = divmod(index, 240)
    return f"127.{second_octet}.{high}.{low + 1}"


class LoopbackTarget:
    """``nodes`` node names answered by one SSH server on loopback (see the module docstring)."""

    def __init__(self, nodes: int, rails: int = 8, *, directory: Path | None = None) -> None:
        if not 1 <= nodes <= MAX_NODES or not 1 <= rails <= 16:
            raise UsageError(f"a loopback target has 1..{MAX_NODES} nodes and 1..16 rails (got {nodes} x {rails})")
        self.node_count = nodes
        self.rail_count = rails
        self._parent = directory
        self._dir: Path | None = None
        self._process: subprocess.Popen[str] | None = None
        self.addresses: list[str] = []
        self.port = 0
        self.start_s: float | None = None
        self.server_cpu_s: float | None = None  # user + system CPU of the server and its commands, once down

    @property
    def dir(self) -> Path:
        if self._dir is None:
            raise LabError("the loopback target is not up")
        return self._dir

    @property
    def client_key(self) -> Path:
        return self.dir / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.dir / "known_hosts"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def __enter__(self) -> Self:
        return self.up()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.down()

    def up(self) -> Self:
        """Keys, stand-ins, one home per node, and the server listening on every node's address."""
        if self._dir is not None:
            raise LabError("the loopback target is already up")
        started = time.monotonic()
        self._dir = Path(tempfile.mkdtemp(prefix="gpufabric-loopback-", dir=self._parent))
        try:
            self._prepare()
            self._start()
        except BaseException:
            self.down()
            raise
        self.start_s = time.monotonic() - started
        return self

    def _prepare(self) -> None:
        generate_key(self.client_key, "gpufabric-loopback-client")
        generate_key(self.dir / "host_key", "gpufabric-loopback-host")
        (self.dir / "authorized_keys").write_text(public_key_line(self.client_key) + "\n", encoding="utf-8")
        standins = self.dir / "standins"
        shutil.copytree(STANDINS, standins / "bin")
        shutil.copyfile(PERFTEST_CAPTURE, standins / "perftest-healthy.txt")
        homes = self.dir / "nodes"
        for index in range(self.node_count):
            (homes / node_name(index)).mkdir(parents=True)

    def _start(self) -> None:
        """Start the server on free addresses and port; another 127.X and port when one cannot be bound."""
        for _ in range(BIND_ATTEMPTS):
            second, port = random.randint(100, 199), random.randint(20_000, 59_000)
            self.addresses = [node_address(second, index) for index in range(self.node_count)]
            self.port = port
            if self._start_server():
                self._write_known_hosts()
                return
        raise LabError(f"loopback target: no free loopback addresses and port after {BIND_ATTEMPTS} attempts")

    def _start_server(self) -> bool:
        config = self.dir / "server.json"
        standins = self.dir / "standins"
        config.write_text(json.dumps({
            "port": self.port, "host_key": str(self.dir / "host_key"),
            "authorized_keys": str(self.dir / "authorized_keys"),
            "path": f"{standins / 'bin'}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "nodes": [{"name": node_name(index), "address": address, "home": str(self.dir / "nodes" / node_name(index))}
                      for index, address in enumerate(self.addresses)],
            "environment": {"GPUFABRIC_STANDIN_DIR": str(standins)},
        }), encoding="utf-8")
        with open(self.dir / "server.log", "a", encoding="utf-8") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "pytest_gpufabric.lab.loopback_server", str(config)], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()  # the server says ready or why not (bounded by its binds)
        if line.startswith("ready "):
            return True
        self._reap()
        if line.startswith("bind-failed"):
            return False
        raise LabError(f"loopback target: the server did not start ({line or 'no answer'}): {self._log_tail()}")

    def _write_known_hosts(self) -> None:
        key = public_key_line(self.dir / "host_key")
        self.known_hosts.write_text("".join(f"[{address}]:{self.port} {key}\n" for address in self.addresses),
                                    encoding="utf-8")

    def _log_tail(self) -> str:
        log = self.dir / "server.log"
        return log.read_text(encoding="utf-8")[-400:] if log.exists() else ""

    def _reap(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL of its process group) and keep its CPU time."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid == process.pid:
                process.returncode = os.waitstatus_to_exitcode(status)
                self.server_cpu_s = round(usage.ru_utime + usage.ru_stime, 3)
                break
            if time.monotonic() > deadline:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)
        try:
            os.killpg(process.pid, signal.SIGKILL)  # commands of the server still running (its session)
        except ProcessLookupError:
            pass
        if process.stdout is not None:
            process.stdout.close()

    def down(self) -> None:
        """Stop the server and remove the target's directory."""
        self._reap()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def inventory(self, profile: str = PROFILE) -> dict[str, Any]:
        """The site.yaml data: every node of the target, ``rails`` NICs each, reached through the server."""
        ssh = {"user": "root", "port": self.port, "key": str(self.client_key), "known_hosts": str(self.known_hosts)}
        document = synthesize(self.node_count, self.rail_count, profile=profile, ssh=ssh, addresses=self.addresses)
        document["site"] = f"loopback-{self.node_count}x{self.rail_count}"
        return document

    def write_inventory(self, path: Path, profile: str = PROFILE) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(self.inventory(profile), sort_keys=False), encoding="utf-8")
        return path
