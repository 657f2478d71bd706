"""Secrets of switch configurations never reach a recording or a report (the one Scrubber, default patterns)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.recording import Scrubber

SECRETS = [
    ("username admin privilege 15 role network-admin secret sha512 $6$rounds$abc/def", "$6$rounds$abc/def"),
    ("enable password 7 0822455D0A16", "0822455D0A16"),
    ("enable secret sha512 $6$zz$yy", "$6$zz$yy"),
    ("tacacs-server host 10.0.0.5 key 7 070C285F4D06", "070C285F4D06"),
    ("radius-server host 10.0.0.6 key 0 radiuskey", "radiuskey"),
    ("snmp-server community s3cr3t ro", "s3cr3t"),
    ('            encrypted-password "$6$jnpr$hash"; ## SECRET-DATA', "$6$jnpr$hash"),
    ('        authentication-key "$9$abc"; ## SECRET-DATA', "$9$abc"),
    ('            "passkey": "hunter2",', "hunter2"),
]


@pytest.mark.parametrize(("line", "secret"), SECRETS)
def test_switch_configuration_secrets_are_scrubbed(line: str, secret: str) -> None:
    scrubbed = Scrubber().scrub(f"!\n{line}\n!\n")
    assert secret not in scrubbed and "<scrubbed>" in scrubbed


@pytest.mark.parametrize("line", ["   priority-flow-control priority 3 no-drop", "   qos trust dscp", "username admin privilege 15",
                                  "snmp-server location rack1", '"pfc_enable": "3,4",'])
def test_configuration_without_secrets_is_kept(line: str) -> None:
    assert Scrubber().scrub(line) == line
