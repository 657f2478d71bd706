"""Run commands over SSH: one reused fabric connection per node per process, host keys verified; each command on
its own session channel (``transport.channel``)."""

from __future__ import annotations

import errno
import os
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

import paramiko
from fabric import Config, Connection

from pytest_gpufabric.errors import TransportError
from pytest_gpufabric.exclusive.leases import NodeGuard, busy_line, lease_error, stop_command
from pytest_gpufabric.transport.base import CommandResult
from pytest_gpufabric.transport.bounded import bounded_command, channel_timeout
from pytest_gpufabric.transport.channel import run_on_channel
from pytest_gpufabric.transport.client_keys import ClientKeys, DefaultKeys
from pytest_gpufabric.transport.known_hosts import KnownHosts
from pytest_gpufabric.transport.open_files import raise_open_files_limit

STOP_TIMEOUT_S = 10.0  # bound of a stop command on its node
SIGNALLED_EXIT = 128 + 15  # the status given a command a signal ended (a stop's SIGTERM, as a shell would say)


@dataclass(frozen=True)
class SshEndpoint:
    """Where and how to reach one node."""

    address: str
    user: str
    port: int
    key: str | None
    known_hosts: str | None
    connect_timeout_s: float
    sudo: bool
    verify_host_key: bool = True
    remote_shell: bool = True  # False for switch CLIs: the command is sent as is, bounded by the channel


def describe_ssh_failure(exc: BaseException) -> str:
    """One line telling an engineer what went wrong with the connection."""
    if isinstance(exc, paramiko.BadHostKeyException):
        return (
            f"host key of {exc.hostname} changed (got {exc.key.get_name()} {exc.key.get_base64()[:16]}...): "
            "refusing to connect; if the node was reinstalled, update known_hosts"
        )
    if isinstance(exc, paramiko.PasswordRequiredException):
        return (f"its SSH key is encrypted ({exc}): give the key through an SSH agent (no ssh.key in the inventory) "
                "or name an unencrypted one")
    if isinstance(exc, paramiko.AuthenticationException):
        return f"SSH authentication failed ({exc})"
    if isinstance(exc, paramiko.SSHException) and "not found in known_hosts" in str(exc):
        return f"unknown host key ({exc}); add the node to known_hosts (host keys are verified by default)"
    if isinstance(exc, paramiko.ssh_exception.NoValidConnectionsError):
        return f"unreachable: {exc.strerror or exc}"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "unreachable: connection timed out"
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        return f"the controller ran out of open files ({exc.strerror}), not the node: raise the open-files limit (ulimit -n)"
    if isinstance(exc, OSError) and exc.filename:  # a file of the controller's (its SSH key), not the network
        return f"the controller cannot read {exc.filename}: {exc.strerror or exc}"
    if isinstance(exc, OSError):
        return f"unreachable: {exc.strerror or exc}"
    return f"SSH error: {type(exc).__name__}: {exc}"


def send_small_packets_at_once(sock: object) -> None:
    """Turn Nagle's algorithm off on a connection's TCP socket (TCP_NODELAY), before its first packet. Every command
    sends small packets back to back (channel open, exec request); with Nagle on, the second waits for the first
    one's delayed ACK: measured over the lab's sshd, 50-55 ms a command on a reused connection, 15-20 ms without.
    The key exchange and the login do the same: with Nagle on until the login was done, logins one after another
    took 62-69 ms over the lab's sshd, 19-20 ms with it off from the first packet (and on the loopback target 4.1-4.9
    ms of CPU against 2.6-2.7: paramiko's threads waking while they waited). Anything but a TCP socket is left as is."""
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


HANDSHAKES_AT_ONCE = 32  # connections a process opens at the same time (key exchange and login)


READER_WAKEUP_S = 10.0  # how often an idle connection's reader thread wakes up (paramiko: every 0.1 s)
# OpenSSH's UserKnownHostsFile and GlobalKnownHostsFile: a node's known_hosts where the inventory names none
OPENSSH_KNOWN_HOSTS = ("~/.ssh/known_hosts", "~/.ssh/known_hosts2", "/etc/ssh/ssh_known_hosts",
                       "/etc/ssh/ssh_known_hosts2")
AEAD_CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com")  # offered first, where paramiko has them


def wake_readers_less_often(conn: Connection) -> None:
    """Let the connection's reader thread sleep ``READER_WAKEUP_S`` in its socket reads once connected (paramiko
    sets 0.1 s: each connection's thread wakes 10 times a second to see whether it was closed). Data still wakes it
    at once, and a close is not waited for (paramiko's close marks the connection closed and returns; the thread
    ends at its next wake-up). Measured on the loopback target, 1,024 idle connections cost the controller 2.17
    CPU-s per 10 s at 0.1 s, 0.375 at 1 s and 0.076 at 10 s: over the 85-200 s of a 1,024 x 8 round there,
    3-7 CPU-s at 1 s."""
    sock = conn.transport.sock if conn.transport is not None else None
    if isinstance(sock, socket.socket):
        sock.settimeout(READER_WAKEUP_S)


def prefer_aead(transport: paramiko.Transport) -> None:
    """Offer AES-GCM first, then paramiko's own ciphers in their order (a node whose sshd has no AES-GCM still
    connects). paramiko prefers AES-CTR with a separate HMAC: two calls into the cryptography library and more of
    paramiko's own Python for every packet, where AES-GCM (an AEAD cipher) encrypts and authenticates in one.
    Measured on the loopback target (``tests/bench/test_bench_ssh_cipher.py``), controller CPU a command printing
    32 KB (as the perftest clients of a node pair on 8 rails do): 1.16-1.72 -> 0.99-1.42 ms."""
    security = transport.get_security_options()
    offered = tuple(security.ciphers)
    security.ciphers = (*(name for name in AEAD_CIPHERS if name in offered),
                        *(name for name in offered if name not in AEAD_CIPHERS))


def tuned_transport(sock: object, **options: object) -> paramiko.Transport:
    """The paramiko transport of one connection (paramiko's ``transport_factory``): Nagle off from the first
    packet, AES-GCM offered first."""
    send_small_packets_at_once(sock)
    transport = paramiko.Transport(sock, **options)
    prefer_aead(transport)
    return transport


def _known_hosts_files(given: str | None) -> list[str]:
    """The known_hosts files of a node: the one its inventory gives (it must be readable), else those of OpenSSH's
    defaults (``UserKnownHostsFile``, ``GlobalKnownHostsFile``) that exist, in OpenSSH's order."""
    if given:
        return [os.path.expanduser(given)]
    return [path for path in map(os.path.expanduser, OPENSSH_KNOWN_HOSTS) if os.path.isfile(path)]


class SshTransport:
    """Opens at most one connection per node per process and reuses it for every command.
    A node whose connection failed is not retried in this process: its later items error at once.

    At most ``HANDSHAKES_AT_ONCE`` connections are being opened at once: the first round of a 1,024-node sweep
    asks for all of them in the same second, and 1,024 key exchanges and logins at once, all on the controller's
    CPU and within paramiko's banner and login time limits, failed (measured on the loopback target: 239 of 512
    node pairs "No existing session"); queued, each one takes its few milliseconds in turn."""

    def __init__(self, endpoints: Mapping[str, SshEndpoint], handshakes_at_once: int = HANDSHAKES_AT_ONCE) -> None:
        self._endpoints = dict(endpoints)
        raise_open_files_limit(len(self._endpoints))  # a connection to each, commands on them at once
        self._connections: dict[str, Connection] = {}
        self._failures: dict[str, str] = {}
        self.connections_opened: dict[str, int] = {}
        self._node_locks = {node: threading.Lock() for node in self._endpoints}  # pairs are measured from threads
        self._known_hosts: dict[str, KnownHosts] = {}  # known_hosts file -> its entries, read once
        self._known_hosts_lock = threading.Lock()
        self._client_keys = ClientKeys()
        self._handshakes = threading.BoundedSemaphore(max(1, handshakes_at_once))

    def _connect(self, node: str) -> Connection:
        lock = self._node_locks.get(node)
        if lock is None:
            raise TransportError(node, "not in the inventory")
        with lock:  # one connection per node, however many threads ask at once
            return self._open(node)

    def _open(self, node: str) -> Connection:
        if node in self._failures:
            raise TransportError(node, self._failures[node])
        cached = self._connections.get(node)
        if cached is not None:
            if cached.is_connected:
                return cached
            self._failures[node] = "connection lost (the node closed it)"
            self._drop(node)
            raise TransportError(node, self._failures[node])
        ep = self._endpoints[node]
        connect_kwargs: dict[str, object] = {"allow_agent": False, "look_for_keys": False,  # keys: ClientKeys
                                             "transport_factory": tuned_transport,
                                             "timeout": ep.connect_timeout_s}  # fabric's own rounds it down to whole s
        conn = Connection(
            host=ep.address,
            user=ep.user,
            port=ep.port,
            connect_kwargs=connect_kwargs,
            config=Config(overrides={"load_ssh_configs": False}),  # one each: fabric's is not safe across threads
        )
        if ep.verify_host_key:
            conn.client.set_missing_host_key_policy(paramiko.RejectPolicy())
            try:
                self._trust_known_host(conn.client, ep)
            except OSError as exc:
                path, reason = exc.filename or ep.known_hosts, exc.strerror or str(exc)
                self._failures[node] = f"its known_hosts file {path} cannot be read: {reason}"
                raise TransportError(node, self._failures[node]) from None
        try:
            if ep.key:  # read once per process (paramiko reads a key_filename again at each connection)
                conn.connect_kwargs["pkey"] = self._client_keys.key(ep.key)
            else:  # the agent's keys, then the default key files, as paramiko's client would, read once too
                conn.connect_kwargs["auth_strategy"] = DefaultKeys(ep.user, self._client_keys)
            with self._handshakes:
                conn.open()
        except Exception as exc:  # paramiko raises many unrelated types; all mean "no connection"
            self._failures[node] = describe_ssh_failure(exc)
            raise TransportError(node, self._failures[node]) from None
        wake_readers_less_often(conn)
        self.connections_opened[node] = self.connections_opened.get(node, 0) + 1
        self._connections[node] = conn
        return conn

    def _trust_known_host(self, client: paramiko.SSHClient, ep: SshEndpoint) -> None:
        """The node's own entries of its known_hosts files (``_known_hosts_files``), each file read once per process
        (reading it again for each connection made connecting quadratic in the nodes: 92 ms a connection with 1,024
        entries) and indexed by name (paramiko's lookup compares every entry: quadratic again, 3.0 CPU-s a process
        at 4,096 nodes, against 0.03 indexed). Of each key type, the first file's key."""
        name = ep.address if ep.port == 22 else f"[{ep.address}]:{ep.port}"  # as paramiko looks the host up
        keys: dict[str, paramiko.PKey] = {}
        for path in _known_hosts_files(ep.known_hosts):
            with self._known_hosts_lock:
                known = self._known_hosts.get(path)
                if known is None:
                    known = self._known_hosts[path] = KnownHosts(path)
            for key_type, key in known.keys_of(name).items():
                keys.setdefault(key_type, key)
        for key_type, key in keys.items():
            client.get_host_keys().add(name, key_type, key)

    def connect(self, node: str) -> None:
        """Open (or reuse) the node's connection; raises TransportError when it cannot be reached."""
        self._connect(node)

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None,
            guard: NodeGuard | None = None) -> CommandResult:
        conn = self._connect(node)
        ep = self._endpoints[node]
        if ep.remote_shell:
            wrapped, wait_s = bounded_command(command, timeout_s, sudo=ep.sudo, guard=guard), channel_timeout(timeout_s)
        else:  # a switch CLI has no `timeout`: closing the channel at the bound ends the CLI session
            wrapped, wait_s = command, timeout_s
        started = time.monotonic()
        try:
            if conn.transport is None:
                raise ConnectionError("the connection has no transport")
            res = run_on_channel(conn.transport, wrapped, wait_s)
            stdout, stderr, code = res.stdout, res.stderr, res.exit_code
            if code is None:
                stderr, code = f"channel timed out after {wait_s:g} s", 124
            elif code == -1 and conn.transport.is_active():  # ended by a signal: sshd sends no exit status then
                stderr, code = stderr + "ended by a signal (no exit status)\n", SIGNALLED_EXIT
            elif code == -1:  # paramiko: the channel closed without an exit status, with its connection (sshd or link gone)
                raise ConnectionError("the channel closed without an exit status")
        except Exception as exc:  # the connection broke under the command
            self._failures[node] = f"connection lost: {describe_ssh_failure(exc)}"
            self._drop(node)
            raise TransportError(node, self._failures[node]) from None
        refused = busy_line(code, stdout) if guard is not None else None
        if refused is not None:
            raise lease_error(node, refused)
        return CommandResult(node, command, stdout, stderr, code, round(time.monotonic() - started, 3))

    def stop_run(self, node: str, run_id: str) -> None:
        """Stop the run's guarded commands on ``node`` (nothing to do on a switch, or a node already lost)."""
        if node in self._endpoints and self._endpoints[node].remote_shell and node not in self._failures:
            self.run(node, stop_command(run_id), STOP_TIMEOUT_S)

    def _drop(self, node: str) -> None:
        conn = self._connections.pop(node, None)
        if conn is not None:
            try:
                conn.close()
            except Exception:  # closing a broken connection may fail again; nothing left to do
                pass

    def close(self) -> None:
        for node in list(self._connections):
            self._drop(node)
