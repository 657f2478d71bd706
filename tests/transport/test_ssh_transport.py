"""The SSH transport against a real sshd on loopback: reuse, host keys, errors, remote-side bounds."""

from __future__ import annotations

import socket
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import paramiko
import pytest
from loopback_sshd import LOOPBACK, LoopbackSshd, free_port

from pytest_gpufabric.errors import TransportError
from pytest_gpufabric.exclusive.leases import LeaseBusy, NodeGuard, holder_line
from pytest_gpufabric.transport.ssh import SIGNALLED_EXIT, SshEndpoint, SshTransport


def endpoint(sshd: LoopbackSshd, **changes: object) -> SshEndpoint:
    base = SshEndpoint(address=str(LOOPBACK), user="root", port=sshd.port, key=str(sshd.client_key),
                       known_hosts=str(sshd.known_hosts), connect_timeout_s=5, sudo=False)
    return replace(base, **changes)  # type: ignore[arg-type]


def transport(sshd: LoopbackSshd, **changes: object) -> SshTransport:
    return SshTransport({"n1": endpoint(sshd, **changes)})


def test_runs_a_command_and_keeps_stdout_stderr_exit_code(sshd: LoopbackSshd) -> None:
    t = transport(sshd)
    try:
        result = t.run("n1", "echo out; echo err >&2; echo $LC_ALL; exit 7", 10)
    finally:
        t.close()
    assert (result.stdout, result.stderr, result.exit_code) == ("out\nC\n", "err\n", 7)


def test_one_connection_per_node_is_reused_for_every_command(sshd: LoopbackSshd) -> None:
    before = sshd.accepted_logins()
    t = transport(sshd)
    try:
        for n in range(20):
            assert t.run("n1", f"echo {n}", 10).stdout == f"{n}\n"
    finally:
        t.close()
    assert t.connections_opened == {"n1": 1}
    time.sleep(0.2)
    assert sshd.accepted_logins() - before == 1


def test_aes_gcm_is_chosen_where_sshd_offers_it_and_paramikos_order_kept_where_not(sshd: LoopbackSshd, tmp_path: Path) -> None:
    """OpenSSH offers AES-GCM: the transport takes it (one call a packet, where paramiko's default AES-CTR takes two
    with its HMAC); an sshd without it is still reached, with paramiko's first choice."""
    t = transport(sshd)
    try:
        t.connect("n1")
        assert t._connections["n1"].transport.remote_cipher == "aes128-gcm@openssh.com"
    finally:
        t.close()
    no_gcm = LoopbackSshd.create(tmp_path)
    no_gcm.files.config.write_text(no_gcm.files.config.read_text() + "Ciphers aes256-ctr,aes128-ctr\n")
    no_gcm.start()
    t = transport(no_gcm)
    try:
        assert t.run("n1", "echo reached", 10).stdout == "reached\n"
        assert t._connections["n1"].transport.remote_cipher == "aes128-ctr"
    finally:
        t.close()
        no_gcm.stop()


def test_logins_and_commands_do_not_wait_for_delayed_acks(sshd: LoopbackSshd, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nagle's algorithm is off from the key exchange on: with it on until the login was done, a login over the
    lab's sshd took 62-69 ms (delayed ACKs), 19-20 ms without."""
    start_client = paramiko.Transport.start_client
    at_handshake: list[int] = []

    def spy(self: paramiko.Transport, *args: object, **kwargs: object) -> object:
        at_handshake.append(self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        return start_client(self, *args, **kwargs)

    monkeypatch.setattr(paramiko.Transport, "start_client", spy)
    t = transport(sshd)
    try:
        t.connect("n1")
        sock = t._connections["n1"].transport.sock  # the connection's own TCP socket
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        t.close()
    assert at_handshake == [1]


def test_values_reach_the_node_exactly_as_quoted(sshd: LoopbackSshd) -> None:
    from pytest_gpufabric.commands import sh

    tricky = "a b'c\"d;$(echo no)`x`"
    t = transport(sshd)
    try:
        assert t.run("n1", sh("printf", "%s", tricky), 10).stdout == tricky
    finally:
        t.close()


def test_remote_timeout_leaves_no_process_behind(sshd: LoopbackSshd) -> None:
    token = uuid.uuid4().hex
    marker = f"gpufabric-{token}"
    t = transport(sshd)
    try:
        started = time.monotonic()
        result = t.run("n1", f"bash -c 'exec -a {marker} sleep 300' | cat", 1)
        assert result.exit_code == 124 and time.monotonic() - started < 15
        assert t.run("n1", f"pgrep -f '[g]pufabric-{token}' || echo none", 10).stdout.strip() == "none"
    finally:
        t.close()


def test_unknown_host_key_is_refused_by_default(sshd: LoopbackSshd, tmp_path: Path) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with pytest.raises(TransportError, match="unknown host key"):
        transport(sshd, known_hosts=str(empty)).run("n1", "true", 10)
    insecure = transport(sshd, known_hosts=str(empty), verify_host_key=False)
    try:
        assert insecure.run("n1", "echo ok", 10).stdout == "ok\n"
    finally:
        insecure.close()


def test_without_a_known_hosts_file_the_users_and_the_systems_are_read(sshd: LoopbackSshd, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # OpenSSH's ~/.ssh/known_hosts, here empty
    (tmp_path / ".ssh").mkdir()
    with pytest.raises(TransportError, match="unknown host key"):
        transport(sshd, known_hosts=None).run("n1", "true", 10)
    (tmp_path / ".ssh" / "known_hosts").write_text(sshd.known_hosts.read_text())
    t = transport(sshd, known_hosts=None)
    try:
        assert t.run("n1", "echo ok", 10).stdout == "ok\n"
    finally:
        t.close()


def test_an_unreadable_key_file_is_the_controllers_not_an_unreachable_node(sshd: LoopbackSshd, tmp_path: Path) -> None:
    with pytest.raises(TransportError, match="the controller cannot read .*absent: No such file or directory"):
        transport(sshd, key=str(tmp_path / "absent")).run("n1", "true", 10)


def test_a_connect_time_limit_under_a_second_is_kept() -> None:
    """fabric rounds its own connect timeout down to whole seconds (0.5 s: none at all, the kernel's ~2 minutes)."""
    with socket.socket() as listener, ExitStack() as fillers:
        listener.bind((str(LOOPBACK), 0))
        listener.listen(0)  # never accepted: once its queue is full, the kernel drops new SYNs (the connect hangs)
        for _ in range(3):
            filler = fillers.enter_context(socket.socket())
            filler.setblocking(False)
            filler.connect_ex(listener.getsockname())
        time.sleep(0.2)
        t = SshTransport({"n1": SshEndpoint(address=str(LOOPBACK), user="root", port=listener.getsockname()[1], key=None,
                                            known_hosts=None, connect_timeout_s=0.5, sudo=False)})
        started = time.monotonic()
        with pytest.raises(TransportError, match="unreachable: connection timed out"):
            t.run("n1", "true", 10)
        assert time.monotonic() - started < 3


def _authorized_key(sshd: LoopbackSshd, path: Path, *keygen: str) -> Path:
    """A new key pair at ``path`` that the sshd accepts (OpenSSH reads authorized_keys at each login)."""
    subprocess.run(["ssh-keygen", "-q", *keygen, "-C", "gpufabric-test-extra", "-f", str(path)], check=True)
    authorized = sshd.directory / "authorized_keys"
    authorized.write_text(authorized.read_text() + path.with_name(path.name + ".pub").read_text())
    return path


def test_an_rsa_key_is_read_once_for_every_connection(sshd: LoopbackSshd, tmp_path: Path, key_reads: list[str]) -> None:
    rsa = _authorized_key(sshd, tmp_path / "id_rsa", "-t", "rsa", "-b", "3072", "-N", "")
    t = SshTransport({f"n{index}": endpoint(sshd, key=str(rsa)) for index in range(4)})
    try:
        assert [t.run(f"n{index}", "echo ok", 10).stdout for index in range(4)] == ["ok\n"] * 4
    finally:
        t.close()
    assert key_reads == [str(rsa)] and t.connections_opened == {f"n{index}": 1 for index in range(4)}


def test_without_a_key_in_the_inventory_the_default_key_files_are_read_once(
        sshd: LoopbackSshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key_reads: list[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)  # no agent: paramiko's client then reads the key files
    (tmp_path / ".ssh").mkdir()
    with pytest.raises(TransportError, match="SSH authentication failed"):
        transport(sshd, key=None).run("n1", "true", 10)  # no key file yet
    stranger = tmp_path / ".ssh" / "id_ecdsa"  # tried first and refused (not authorized), then the node's key
    subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-f", str(stranger)], check=True)
    accepted = _authorized_key(sshd, tmp_path / ".ssh" / "id_ed25519", "-t", "ed25519", "-N", "")
    t = SshTransport({f"n{index}": endpoint(sshd, key=None) for index in range(3)})
    try:
        assert [t.run(f"n{index}", "echo ok", 10).stdout for index in range(3)] == ["ok\n"] * 3
    finally:
        t.close()
    assert key_reads == [str(stranger), str(accepted)]


def test_without_a_key_in_the_inventory_the_agents_keys_are_used(sshd: LoopbackSshd, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no default key files: only the agent holds the node's key
    socket_path = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket_path)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not socket_path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket_path))
        subprocess.run(["ssh-add", "-q", str(sshd.client_key)], check=True, capture_output=True)
        t = transport(sshd, key=None)
        try:
            assert t.run("n1", "echo ok", 10).stdout == "ok\n"
        finally:
            t.close()
    finally:
        agent.terminate()
        agent.wait(timeout=10)


def test_an_encrypted_key_is_named_as_such(sshd: LoopbackSshd, tmp_path: Path) -> None:
    encrypted = _authorized_key(sshd, tmp_path / "id_encrypted", "-t", "ed25519", "-N", "secret")
    with pytest.raises(TransportError, match="its SSH key is encrypted .*SSH agent"):
        transport(sshd, key=str(encrypted)).run("n1", "true", 10)


def test_an_unreadable_known_hosts_file_is_the_nodes_error(sshd: LoopbackSshd, tmp_path: Path) -> None:
    t = transport(sshd, known_hosts=str(tmp_path / "absent"))
    for _ in range(2):  # the node's later commands error at once, as after any failed connection
        with pytest.raises(TransportError, match="known_hosts file .*absent cannot be read: No such file"):
            t.run("n1", "true", 10)
    assert not t.connections_opened


def test_changed_host_key_is_refused(sshd: LoopbackSshd, tmp_path: Path) -> None:
    other = tmp_path / "known_hosts"
    other.write_text(f"[{LOOPBACK}]:{sshd.port} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")
    with pytest.raises(TransportError, match="host key of .* changed"):
        transport(sshd, known_hosts=str(other)).run("n1", "true", 10)


def test_wrong_key_is_an_authentication_error(sshd: LoopbackSshd, tmp_path: Path) -> None:
    from pytest_gpufabric.lab.sshd import generate_key

    stranger = generate_key(tmp_path / "stranger", "stranger")
    with pytest.raises(TransportError, match="authentication failed"):
        transport(sshd, key=str(stranger)).run("n1", "true", 10)


def test_unreachable_node_errors_fast_and_is_not_retried(sshd: LoopbackSshd) -> None:
    t = transport(sshd, port=free_port())
    with pytest.raises(TransportError, match="unreachable"):
        t.run("n1", "true", 10)
    started = time.monotonic()
    with pytest.raises(TransportError, match="unreachable"):
        t.run("n1", "true", 10)
    assert time.monotonic() - started < 0.1


def test_sshd_killed_between_commands_is_a_lost_connection(tmp_path: Path, sshd: LoopbackSshd) -> None:
    doomed = LoopbackSshd.create(tmp_path)
    doomed.start()
    t = SshTransport({"n1": endpoint(doomed)})
    try:
        assert t.run("n1", "echo up", 10).stdout == "up\n"
        doomed.stop()  # the listener and every session process
        with pytest.raises(TransportError, match="connection lost"):
            t.run("n1", "echo still there?", 10)
        with pytest.raises(TransportError, match="connection lost"):
            t.connect("n1")  # later items of the node error at once
    finally:
        t.close()
        doomed.stop()


def test_a_command_a_signal_ended_is_no_lost_connection(sshd: LoopbackSshd) -> None:
    t = transport(sshd)
    try:
        ended = t.run("n1", "kill -TERM $$", 10)  # sshd then sends an exit signal, no exit status
        assert ended.exit_code == SIGNALLED_EXIT and "ended by a signal" in ended.stderr
        assert t.run("n1", "echo still here", 10).stdout == "still here\n" and t.connections_opened == {"n1": 1}
    finally:
        t.close()


def test_guarded_commands_lease_their_nic_on_the_node_and_are_stopped_by_their_run(sshd: LoopbackSshd) -> None:
    holder = NodeGuard("c0ffee000001", holder_line("c0ffee000001", "controller-a", 11), ("nic:n1/bnxt_re0",))
    other = NodeGuard("c0ffee000002", holder_line("c0ffee000002", "controller-b", 22), ("nic:n1/bnxt_re0",))
    t = transport(sshd)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            long_run = pool.submit(t.run, "n1", "sleep 60; echo never", 90, guard=holder)
            deadline = time.monotonic() + 20
            while True:  # until the first command holds its lease
                try:
                    t.run("n1", "true", 10, guard=other)
                except LeaseBusy as busy:
                    assert busy.line.endswith("is in use by run c0ffee000001 (controller controller-a pid 11)")
                    break
                assert time.monotonic() < deadline, "the first command never took its lease"
                time.sleep(0.1)
            started = time.monotonic()
            t.stop_run("n1", holder.run_id)
            assert long_run.result(timeout=30).exit_code == SIGNALLED_EXIT and time.monotonic() - started < 10
        assert t.run("n1", "echo free", 10, guard=other).stdout == "free\n"
    finally:
        t.close()
