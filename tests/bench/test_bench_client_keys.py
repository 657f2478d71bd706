"""What the controller's SSH key costs a connection: reading the key file (what paramiko did at every connection,
given a ``key_filename``) against asking ``ClientKeys`` for the key already read (what the transport does now),
CPU time of this process, the lowest of ``TURNS``.

Measured: an RSA key 30 ms to read at 2,048 bits, 94 ms at 3,072 (``ssh-keygen``'s RSA default), 211 ms at 4,096
(the cryptography library checks the key as it loads it); an Ed25519 key 0.17 ms (the RSA and ECDSA readers tried
first, in paramiko's order); a key already read 0.3 us. Over a real sshd (``tests/transport``'s), 16 logins with a 3,072-bit RSA key cost 96.8 ms of CPU each
before, 10.9 ms after (Ed25519: 4.4 and 3.9 ms): at 1,024 nodes, 99 -> 11 CPU-s in each controller process. With
no key in the inventory and no agent (the default ``~/.ssh/id_rsa``, 3,072 bits): 102.7 -> 11.5 ms a login.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.transport.client_keys import ClientKeys, read_client_key

TURNS = 3
ASKS = 10_000
MAX_SHARE = 0.01  # a connection's ask for a key already read, against one reading of the key


def _keygen(path: Path, *options: str) -> Path:
    subprocess.run(["ssh-keygen", "-q", *options, "-N", "", "-C", "gpufabric-bench", "-f", str(path)], check=True)
    return path


def _lowest_cpu_s(action: Any, turns: int = TURNS) -> float:
    times = []
    for _ in range(turns):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return min(times)


@pytest.mark.parametrize("keygen", [("-t", "rsa", "-b", "3072"), ("-t", "ed25519")], ids=["rsa-3072", "ed25519"])
def test_a_connection_asks_for_its_key_without_reading_the_file(tmp_path: Path, keygen: tuple[str, ...],
                                                                benchmark: Any) -> None:
    path = str(_keygen(tmp_path / "id", *keygen))
    reading = _lowest_cpu_s(lambda: read_client_key(path))
    keys = ClientKeys()
    keys.key(path)
    asking = _lowest_cpu_s(lambda: [keys.key(path) for _ in range(ASKS)]) / ASKS
    benchmark.pedantic(keys.key, args=(path,), rounds=100, iterations=10)
    print(f"{keygen[1]}: reading the key file {1000 * reading:.3f} ms, asking for the key read {1e6 * asking:.2f} us")
    assert asking < MAX_SHARE * reading, (reading, asking)
