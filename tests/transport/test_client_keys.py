"""The controller's SSH private keys read as paramiko's client reads a key file, once per process."""

from __future__ import annotations

import subprocess
from pathlib import Path

import paramiko
import pytest

from pytest_gpufabric.transport.client_keys import ClientKeys, read_client_key


def _keygen(path: Path, kind: str, *options: str) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", f"gpufabric-test-{kind}", "-f", str(path), *options],
                   check=True)
    return path


@pytest.mark.parametrize(("kind", "options", "key_class"), [
    ("rsa", ("-b", "2048"), paramiko.RSAKey),
    ("rsa", ("-b", "2048", "-m", "PEM"), paramiko.RSAKey),  # the older PEM form
    ("ecdsa", (), paramiko.ECDSAKey),
    ("ed25519", (), paramiko.Ed25519Key),
])
def test_each_key_type_is_read_as_its_class(tmp_path: Path, kind: str, options: tuple[str, ...],
                                            key_class: type[paramiko.PKey]) -> None:
    path = _keygen(tmp_path / f"id_{kind}", kind, *options)
    key = read_client_key(str(path))
    assert isinstance(key, key_class)
    assert key.get_base64() == path.with_name(f"id_{kind}.pub").read_text().split()[1]


def test_a_certificate_beside_the_key_is_loaded_and_may_be_named_instead(tmp_path: Path) -> None:
    authority = _keygen(tmp_path / "ca", "ed25519")
    key = _keygen(tmp_path / "id_ed25519", "ed25519")
    subprocess.run(["ssh-keygen", "-q", "-s", str(authority), "-I", "gpufabric-test", "-n", "root",
                    str(tmp_path / "id_ed25519.pub")], check=True)
    for named in (key, tmp_path / "id_ed25519-cert.pub"):
        loaded = read_client_key(str(named))
        assert loaded.public_blob is not None and loaded.public_blob.key_type.endswith("-cert-v01@openssh.com")
    assert read_client_key(str(_keygen(tmp_path / "plain", "ed25519"))).public_blob is None


def test_an_encrypted_key_says_so(tmp_path: Path) -> None:
    path = tmp_path / "id_encrypted"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", str(path)], check=True)
    with pytest.raises(paramiko.PasswordRequiredException):
        read_client_key(str(path))


def test_a_file_that_holds_no_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a key\n")
    with pytest.raises(paramiko.SSHException):
        read_client_key(str(path))


def test_each_file_is_read_once(tmp_path: Path, key_reads: list[str]) -> None:
    first, second = _keygen(tmp_path / "first", "ed25519"), _keygen(tmp_path / "second", "ed25519")
    keys = ClientKeys()
    found = [keys.key(str(path)) for path in (first, second, first, second, first)]
    assert key_reads == [str(first), str(second)]
    assert found[0] is found[2] is found[4] and found[1] is found[3]
