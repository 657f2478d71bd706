"""The controller's SSH private keys, each read once per process.

Given a ``key_filename``, paramiko reads the key file again at every connection, and reading an RSA key checks the
key (the cryptography library's RSA key validation): measured 30 ms of CPU for a 2,048-bit key, 94 ms for 3,072 bits
(``ssh-keygen``'s RSA default) and 211 ms for 4,096, where an Ed25519 key takes 0.17 ms. At 1,024 nodes with a
3,072-bit key that was 96 CPU-s in every controller process, before any command ran. Here each file is read once
and its key handed to every connection (paramiko's ``pkey``): measured over a real sshd, a login with a 3,072-bit
RSA key 96.8 -> 10.9 ms of CPU (16 logins), with an Ed25519 key 4.4 -> 3.9 ms. A node whose inventory names no key
is logged in as paramiko's client would (the SSH agent's keys, then the default key files), the files read once
too (``DefaultKeys``): with ``~/.ssh/id_rsa`` of 3,072 bits and no agent, a login 102.7 -> 11.5 ms."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import paramiko
from paramiko.auth_strategy import AuthSource, InMemoryPrivateKey

CERT_SUFFIX = "-cert.pub"  # an OpenSSH certificate beside its private key
KEY_CLASSES = (paramiko.RSAKey, paramiko.ECDSAKey, paramiko.Ed25519Key)  # tried in the order paramiko's client tries
# The key files paramiko's client looks for (``look_for_keys``), in its order.
DEFAULT_KEY_FILES = tuple(f"~/{folder}/id_{kind}" for kind in ("rsa", "ecdsa", "ed25519") for folder in (".ssh", "ssh"))


def read_client_key(filename: str) -> paramiko.PKey:
    """The private key of ``filename``, as paramiko's client reads a ``key_filename``: each key type tried in its
    order, and the certificate beside the key (``<key>-cert.pub``) loaded where there is one; ``filename`` may
    also name the certificate. Raises the reason the file holds no usable key (an encrypted key's first)."""
    if filename.endswith(CERT_SUFFIX):
        key_path, cert_path = filename[: -len(CERT_SUFFIX)], filename
    else:
        key_path, cert_path = filename, filename + CERT_SUFFIX
    failures: list[paramiko.SSHException] = []
    for key_class in KEY_CLASSES:
        try:
            key = key_class.from_private_key_file(key_path)
        except paramiko.SSHException as exc:
            failures.append(exc)
            continue
        if os.path.isfile(cert_path):
            key.load_certificate(cert_path)
        return key
    raise next((exc for exc in failures if isinstance(exc, paramiko.PasswordRequiredException)), failures[-1])


class ClientKeys:
    """Key file -> its key, read at its first use in this process (threads asking at once wait for one reading)."""

    def __init__(self) -> None:
        self._keys: dict[str, paramiko.PKey] = {}
        self._lock = threading.Lock()

    def key(self, filename: str) -> paramiko.PKey:
        """The key of ``filename`` (``~`` expanded); raises as ``read_client_key`` does, again at each ask."""
        path = os.path.expanduser(filename)
        with self._lock:
            key = self._keys.get(path)
            if key is None:
                key = self._keys[path] = read_client_key(path)
            return key

    def default_keys(self) -> list[paramiko.PKey]:
        """The keys of the default key files that exist and hold a key paramiko can use (an encrypted one cannot be:
        paramiko's client passes it over too)."""
        keys = []
        for filename in DEFAULT_KEY_FILES:
            if os.path.isfile(os.path.expanduser(filename)):
                try:
                    keys.append(self.key(filename))
                except (paramiko.SSHException, OSError):
                    continue
        return keys


class DefaultKeys(paramiko.AuthStrategy):
    """A login without a key named in the inventory, as paramiko's client logs in with ``allow_agent`` and
    ``look_for_keys``: each key of the SSH agent, then each default key file's, the first the node accepts; the
    files read once per process (``ClientKeys``)."""

    def __init__(self, username: str, keys: ClientKeys) -> None:
        super().__init__(ssh_config=paramiko.SSHConfig())
        self._username = username
        self._keys = keys

    def get_sources(self) -> Iterator[AuthSource]:
        agent = paramiko.Agent()
        try:
            for key in agent.get_keys():
                yield InMemoryPrivateKey(self._username, key)
            for key in self._keys.default_keys():
                yield InMemoryPrivateKey(self._username, key)
        finally:
            agent.close()
