"""One sshd per node namespace: its host key, configuration, start, stop and kill (always by PID).

sshd runs as ``ip netns exec NODE unshare --uts sh -c '...; exec sshd -D'``: ``ip netns exec`` gives it a
private mount namespace, where a small tmpfs on /run provides sshd's privilege-separation directory
without touching the machine's /run and a directory of the lab is mounted on /root (the node's own
home: the machine's shell start-up files do not run in the node's sessions), and the UTS namespace lets each node have its own host name. Every
step ``exec``s, so the PID we start is the PID of sshd itself.
"""

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

from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.iproute import run

SSHD = "/usr/sbin/sshd"
SSH_PORT = 22
ROOT_HOME = "/root"
START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 5.0


def generate_key(path: Path, comment: str) -> Path:
    """Create an ed25519 key pair ``path`` / ``path.pub`` (replacing any old one); return ``path``."""
    for old in (path, path.with_suffix(".pub")):
        old.unlink(missing_ok=True)
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)])
    path.chmod(0o600)
    return path


def public_key_line(private_key: Path) -> str:
    """``<type> <base64>`` of the key pair's public half (no comment)."""
    fields = private_key.with_suffix(".pub").read_text().split()
    if len(fields) < 2:
        raise LabError(f"{private_key}.pub is not an OpenSSH public key")
    return f"{fields[0]} {fields[1]}"


@dataclass(frozen=True)
class SshdFiles:
    """The files of one node's sshd, all inside the lab directory."""

    config: Path
    host_key: Path
    pid_file: Path
    log_file: Path
    authorized_keys: Path
    home: Path  # mounted on /root for the node's sessions: each node has its own, empty home

    @classmethod
    def in_dir(cls, directory: Path, authorized_keys: Path) -> SshdFiles:
        return cls(
            config=directory / "sshd_config",
            host_key=directory / "ssh_host_ed25519_key",
            pid_file=directory / "sshd.pid",
            log_file=directory / "sshd.log",
            home=directory / "home",
            authorized_keys=authorized_keys,
        )


def render_config(files: SshdFiles, listen: IPv4Address, port: int = SSH_PORT) -> str:
    """An sshd_config that accepts only the lab's key, only on the node's management address."""
    return "\n".join(
        [
            f"ListenAddress {listen}:{port}",
            f"HostKey {files.host_key}",
            f"AuthorizedKeysFile {files.authorized_keys}",
            f"PidFile {files.pid_file}",
            "PermitRootLogin prohibit-password",
            "PubkeyAuthentication yes",
            "AuthenticationMethods publickey",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "HostbasedAuthentication no",
            "UsePAM no",
            # The lab's files live in a temporary directory, not in ~/.ssh.
            "StrictModes no",
            "UseDNS no",
            "PrintMotd no",
            "X11Forwarding no",
            "AllowTcpForwarding no",
            "MaxStartups 100:30:200",
            "MaxSessions 64",
            "LogLevel VERBOSE",
            "",
        ]
    )


class SshdProcess:
    """The sshd of one node; started in the node's namespace, stopped by its PID."""

    def __init__(
        self, namespace: str, hostname: str, listen: IPv4Address, files: SshdFiles
    ) -> None:
        self.namespace = namespace
        self.hostname = hostname
        self.listen = listen
        self.files = files
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        """PID of the running sshd, or None when it is not running."""
        if self._process is None or self._process.poll() is not None:
            return None
        return self._process.pid

    def write_config(self) -> None:
        self.files.home.mkdir(mode=0o700, exist_ok=True)
        self.files.config.write_text(render_config(self.files, self.listen))
        run(self._argv(f"{SSHD} -t -f {shlex.quote(str(self.files.config))}"))

    def _argv(self, sshd_command: str) -> list[str]:
        """``sshd_command`` inside the node's namespaces, with a private /run holding /run/sshd."""
        inner = (
            "mount -t tmpfs -o mode=0755,size=1m gpufabric-lab /run && mkdir -m 0755 /run/sshd"
            f" && mount --bind {shlex.quote(str(self.files.home))} {ROOT_HOME}"
            f" && hostname {shlex.quote(self.hostname)} && exec {sshd_command}"
        )
        return [
            "ip",
            "netns",
            "exec",
            self.namespace,
            "unshare",
            "--uts",
            "sh",
            "-c",
            inner,
        ]

    def start(self) -> int:
        """Start sshd and wait until it accepts TCP connections; return its PID."""
        if self.pid is not None:
            raise LabError(f"sshd of {self.hostname} already runs as PID {self.pid}")
        self.files.pid_file.unlink(missing_ok=True)
        argv = self._argv(
            f"{SSHD} -D -f {shlex.quote(str(self.files.config))} -E {shlex.quote(str(self.files.log_file))}"
        )
        self._process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self._wait_listening()
        return self._process.pid

    def _wait_listening(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                err = (
                    self._process.stderr.read().decode(errors="replace")
                    if self._process.stderr
                    else ""
                )
                raise LabError(
                    f"sshd of {self.hostname} exited {self._process.returncode}: {err.strip()} {self._log_tail()}"
                )
            try:
                with socket.create_connection(
                    (str(self.listen), SSH_PORT), timeout=0.5
                ):
                    return
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise LabError(
            f"sshd of {self.hostname} did not listen on {self.listen}:{SSH_PORT} within {START_TIMEOUT_S} s"
        )

    def _log_tail(self) -> str:
        try:
            return self.files.log_file.read_text()[-500:]
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM the listening sshd (open sessions live on, as with a real sshd restart)."""
        self._signal_and_reap(signal.SIGTERM)

    def kill(self, *, sessions: bool = True) -> None:
        """SIGKILL the sshd and, with ``sessions``, every session process it forked (a crash mid-run)."""
        pid = self.pid
        if pid is None:
            return
        victims = _frozen_descendants(pid) if sessions else []
        self._signal_and_reap(signal.SIGKILL)
        for child in victims:
            _kill_quietly(child, signal.SIGKILL)

    def _signal_and_reap(self, sig: signal.Signals) -> None:
        process = self._process
        if process is None or process.poll() is not None:
            self._process = None
            return
        _kill_quietly(process.pid, sig)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _kill_quietly(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT_S)
        if process.stderr:
            process.stderr.close()
        self._process = None


def _kill_quietly(pid: int, sig: signal.Signals) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _frozen_descendants(pid: int) -> list[int]:
    """Every process below ``pid``, each stopped (SIGSTOP) as found, until none is left to find: a process forked
    while the others were being found is caught too, so a SIGKILL of them all leaves nothing behind."""
    frozen: list[int] = []
    while found := [child for child in descendants(pid) if child not in frozen]:
        for child in found:
            _kill_quietly(child, signal.SIGSTOP)
        frozen.extend(found)
    return frozen


def descendants(pid: int) -> list[int]:
    """PIDs of every process below ``pid`` (children first found, then theirs), from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    frontier = [pid]
    while frontier:
        children = parents.get(frontier.pop(), [])
        found.extend(children)
        frontier.extend(children)
    return found
