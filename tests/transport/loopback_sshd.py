"""A real sshd on 127.0.0.1 for the transport tests: own host key, own client key, started and stopped by PID."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path

from pytest_gpufabric.lab.sshd import SSHD, SshdFiles, descendants, generate_key, public_key_line, render_config

LOOPBACK = IPv4Address("127.0.0.1")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((str(LOOPBACK), 0))
        return int(sock.getsockname()[1])


@dataclass
class LoopbackSshd:
    """sshd -D in a private mount namespace (its /run/sshd on a tmpfs), listening on loopback only."""

    directory: Path
    port: int
    client_key: Path
    known_hosts: Path
    files: SshdFiles
    process: subprocess.Popen[bytes] | None = None

    @classmethod
    def create(cls, directory: Path) -> LoopbackSshd:
        client_key = generate_key(directory / "client_key", "gpufabric-test-client")
        authorized = directory / "authorized_keys"
        authorized.write_text(public_key_line(client_key) + "\n")
        files = SshdFiles.in_dir(directory, authorized)
        generate_key(files.host_key, "gpufabric-test-host")
        port = free_port()
        files.config.write_text(render_config(files, LOOPBACK, port))
        known_hosts = directory / "known_hosts"
        known_hosts.write_text(f"[{LOOPBACK}]:{port} {public_key_line(files.host_key)}\n")
        return cls(directory, port, client_key, known_hosts, files)

    def start(self) -> None:
        inner = (
            "mount -t tmpfs -o mode=0755,size=1m gpufabric-test /run && mkdir -m 0755 /run/sshd && "
            f"exec {SSHD} -D -f {shlex.quote(str(self.files.config))} -E {shlex.quote(str(self.files.log_file))}"
        )
        self.process = subprocess.Popen(["unshare", "--mount", "sh", "-c", inner], start_new_session=True,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((str(LOOPBACK), self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"sshd did not listen on {LOOPBACK}:{self.port}: {self.log()[-400:]}")

    def stop(self) -> None:
        """Kill the sshd and every session process it forked (by the PIDs we started and found below it)."""
        if self.process is not None and self.process.poll() is None:
            for pid in [*descendants(self.process.pid), self.process.pid]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.process.wait(timeout=10)
        self.process = None

    def log(self) -> str:
        return self.files.log_file.read_text() if self.files.log_file.exists() else ""

    def accepted_logins(self) -> int:
        return self.log().count("Accepted publickey")
