"""A known_hosts file read once and looked up by host name in constant time, as paramiko would look it up.

paramiko's ``HostKeys`` compares a name with every entry of the file, and its reading looks up every line's names
among the lines before: both grow with the nodes, so a process that reads the file and looks up each of its
nodes spends time in the square of the nodes (measured: 0.19 CPU-s at 1,024 entries, 3.0 CPU-s at 4,096, in every
controller process). Here the plain names are indexed. A hashed name (``|1|salt|hash``, OpenSSH's
``HashKnownHosts``) can only be matched by hashing the name with that entry's own salt, so hashed entries are still
compared one by one, but with their salt and hash decoded once and one call into the HMAC of the standard library
(paramiko decodes, hashes and encodes again for every comparison): 1,024 nodes of a hashed file cost a process
1.4 CPU-s instead of 12.6 (a file of plain names, as ``ssh-keyscan`` writes it without ``-H``, 0.007).
"""

from __future__ import annotations

import base64
import binascii
import hmac
from pathlib import Path

import paramiko
from paramiko.hostkeys import HostKeyEntry, InvalidHostKey

HASHED_PREFIX = "|1|"  # OpenSSH's hashed host name: |1|salt|hash (base64 of the salt and of HMAC-SHA1(salt, name))


class KnownHosts:
    """The entries of one known_hosts file; ``keys_of`` answers as paramiko's ``HostKeys.lookup`` does."""

    def __init__(self, path: str | Path) -> None:
        self._by_name: dict[str, list[tuple[int, paramiko.PKey]]] = {}  # plain name -> (line index, key)
        self._hashed: list[tuple[int, bytes, bytes, paramiko.PKey]] = []  # (line index, salt, hash, key)
        with open(path, encoding="utf-8", errors="replace") as lines:
            for index, line in enumerate(lines, 1):
                self._add(index, line.strip())

    def _add(self, index: int, line: str) -> None:
        """One line, read as paramiko reads it: blank lines, comments and lines it cannot read are skipped (a key that
        is not base64 too, which stops paramiko's reading of the whole file; OpenSSH skips such a line)."""
        if not line or line.startswith("#"):
            return
        try:
            entry = HostKeyEntry.from_line(line, index)
        except (paramiko.SSHException, InvalidHostKey):
            return
        if entry is None or entry.key is None:
            return
        for name in entry.hostnames:
            if name.startswith(HASHED_PREFIX):
                salt_and_hash = _salt_and_hash(name)
                if salt_and_hash is not None:
                    self._hashed.append((index, *salt_and_hash, entry.key))
            else:
                self._by_name.setdefault(name, []).append((index, entry.key))

    def keys_of(self, name: str) -> dict[str, paramiko.PKey]:
        """Key type -> key for ``name`` (``host`` or ``[host]:port``): of each type, the key of the first line that
        names it, as paramiko's lookup gives; empty when no line does."""
        found = list(self._by_name.get(name, ()))
        if not name.startswith(HASHED_PREFIX):
            encoded = name.encode()
            found += [(index, key) for index, salt, hashed, key in self._hashed
                      if hmac.digest(salt, encoded, "sha1") == hashed]
        keys: dict[str, paramiko.PKey] = {}
        for _, key in sorted(found, key=lambda entry: entry[0]):
            keys.setdefault(key.get_name(), key)
        return keys


def _salt_and_hash(name: str) -> tuple[bytes, bytes] | None:
    """The salt and the hash of a hashed name; None when they are not base64 (the name then matches no host, where
    paramiko's lookup raised on it)."""
    parts = name[len(HASHED_PREFIX):].split("|")
    if len(parts) != 2:
        return None
    try:
        return base64.b64decode(parts[0], validate=True), base64.b64decode(parts[1], validate=True)
    except binascii.Error:
        return None
