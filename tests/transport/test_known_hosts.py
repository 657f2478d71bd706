"""known_hosts read once and indexed: the same keys for every name as paramiko's own reading and lookup."""

from __future__ import annotations

from pathlib import Path

import paramiko
import pytest

from pytest_gpufabric.transport.known_hosts import KnownHosts

RSA = paramiko.RSAKey.generate(1024)
ECDSA = paramiko.ECDSAKey.generate()
OTHER_ECDSA = paramiko.ECDSAKey.generate()


def _line(names: str, key: paramiko.PKey, separator: str = " ") -> str:
    return f"{names}{separator}{key.get_name()}{separator}{key.get_base64()}\n"


def _file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "known_hosts"
    path.write_text("".join(lines))
    return path


def _paramikos(path: Path, name: str) -> dict[str, str]:
    return {kind: key.get_base64() for kind, key in (paramiko.HostKeys(str(path)).lookup(name) or {}).items()}


def _ours(known: KnownHosts, name: str) -> dict[str, str]:
    return {kind: key.get_base64() for kind, key in known.keys_of(name).items()}


NAMES = ("node01", "10.0.0.2", "[10.0.0.3]:2222", "node04", "node05", "[node05]:22", "hashed-node", "absent", "node07")


@pytest.fixture
def known_hosts(tmp_path: Path) -> Path:
    return _file(tmp_path, [
        "# a comment\n",
        "\n",
        _line("node01", RSA),
        _line("node01,10.0.0.2", ECDSA),  # two names on one line; node01 gains a second key type
        _line("[10.0.0.3]:2222", RSA, separator="\t"),
        _line("node04", ECDSA),
        _line("node04", OTHER_ECDSA),  # a second key of one type: the first line's is taken
        _line(paramiko.HostKeys.hash_host("hashed-node"), RSA),
        _line(paramiko.HostKeys.hash_host("node05"), OTHER_ECDSA),  # hashed before a plain line of the same type
        _line("node05", ECDSA),
        "node06 ssh-rsa\n",  # too few fields
        _line("node07", RSA).replace("ssh-rsa", "ssh-unknown"),  # a key type paramiko does not know
        "   " + _line("node07", ECDSA),  # leading blanks
    ])


@pytest.mark.parametrize("name", NAMES)
def test_each_name_gets_the_keys_paramiko_gives(known_hosts: Path, name: str) -> None:
    assert _ours(KnownHosts(known_hosts), name) == _paramikos(known_hosts, name)


def test_the_answers_are_the_documented_ones(known_hosts: Path) -> None:
    known = KnownHosts(known_hosts)
    assert _ours(known, "node01") == {"ssh-rsa": RSA.get_base64(), ECDSA.get_name(): ECDSA.get_base64()}
    assert _ours(known, "node04") == {ECDSA.get_name(): ECDSA.get_base64()}
    assert _ours(known, "node05") == {ECDSA.get_name(): OTHER_ECDSA.get_base64()}  # the hashed line came first
    assert _ours(known, "hashed-node") == {"ssh-rsa": RSA.get_base64()}
    assert _ours(known, "absent") == {}
    assert _ours(known, paramiko.HostKeys.hash_host("hashed-node")) == {}  # a hashed name is no host name


def test_a_key_that_is_not_base64_costs_only_its_line(tmp_path: Path) -> None:
    path = _file(tmp_path, ["node01 ssh-rsa not*base64\n", _line("node02", RSA)])
    with pytest.raises(paramiko.hostkeys.InvalidHostKey):
        paramiko.HostKeys(str(path))  # paramiko stops reading the whole file there
    known = KnownHosts(path)
    assert _ours(known, "node01") == {}
    assert _ours(known, "node02") == {"ssh-rsa": RSA.get_base64()}


def test_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        KnownHosts(tmp_path / "absent")


def test_a_hashed_name_that_is_not_base64_matches_no_host(tmp_path: Path) -> None:
    path = _file(tmp_path, [_line("|1|not*base64|AAAA", RSA), _line(paramiko.HostKeys.hash_host("node02"), ECDSA)])
    known = KnownHosts(path)
    assert _ours(known, "node01") == {}
    assert _ours(known, "node02") == {ECDSA.get_name(): ECDSA.get_base64()}
