"""Secret scrubbing: what the built-in patterns remove, what they leave, and configured patterns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.recording import Scrubber

DATA = Path(__file__).parent / "data"

SCRUBBED_CASES = [
    ("sshpass -p hunter2 ssh root@node01 uptime", "sshpass -p <scrubbed> ssh root@node01 uptime"),
    ("sshpass -phunter2 ssh node01", "sshpass -p<scrubbed> ssh node01"),
    ("sshpass -e -p 'two words' ssh node01", "sshpass -e -p '<scrubbed>' ssh node01"),
    ("mysql --password hunter2 -u admin", "mysql --password <scrubbed> -u admin"),
    ("tool --db-password=hunter2 --verbose", "tool --db-password=<scrubbed> --verbose"),
    ('export MYSQL_ROOT_PASSWORD="hunter2"; ls', 'export MYSQL_ROOT_PASSWORD="<scrubbed>"; ls'),
    ("export NGC_API_KEY=nvapi-abc123", "export NGC_API_KEY=<scrubbed>"),
    ('{"token": "abc", "count": 1}', '{"token": "<scrubbed>", "count": 1}'),
    ("username: admin\npassword: hunter2\n", "username: admin\npassword: <scrubbed>\n"),
    ("client_secret=s3cr3t&x=1", "client_secret=<scrubbed>"),
    ("X-Api-Key: abc123", "X-Api-Key: <scrubbed>"),
    ("passwd: hunter2", "passwd: <scrubbed>"),
    (
        "curl -H 'Authorization: Bearer eyJ0.eyJ1.sig' https://bmc/redfish/v1",
        "curl -H 'Authorization: Bearer <scrubbed>' https://bmc/redfish/v1",
    ),
    ("Authorization: Basic YWRtaW46aHVudGVyMg==\r\nHost: bmc\r\n", "Authorization: Basic <scrubbed>\r\nHost: bmc\r\n"),
    (
        "ipmitool -I lanplus -H 10.0.0.1 -U admin -P hunter2 chassis status",
        "ipmitool -I lanplus -H 10.0.0.1 -U admin -P <scrubbed> chassis status",
    ),
    (
        "git clone https://deploy:hunter2@git.example.org/fabric.git",
        "git clone https://deploy:<scrubbed>@git.example.org/fabric.git",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\ndone\n",
        "-----BEGIN OPENSSH PRIVATE KEY-----<scrubbed>-----END OPENSSH PRIVATE KEY-----\ndone\n",
    ),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n", "-----BEGIN RSA PRIVATE KEY-----<scrubbed>"),
    (
        "'...IN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA\\n-----END RSA PRIVATE KEY-----\\n'",
        "'...IN RSA PRIVATE KEY-----<scrubbed>-----END RSA PRIVATE KEY-----\\n'",
    ),
]

UNTOUCHED = [
    "genai-perf profile --max-tokens 128 --tokenizer meta-llama/Llama-3 --output-tokens-mean 64",
    "PWD=/root\nOLDPWD=/home/ops\n",
    "[sudo] password for ops:",
    "token:\nnext line",
    "author=ops",
    "ib_write_bw -d bnxt_re0 -x 3 -q 4 --report_gbits -F 10.1.0.2",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
]


@pytest.mark.parametrize(("text", "expected"), SCRUBBED_CASES)
def test_default_patterns_scrub_the_secret_and_keep_the_rest(text: str, expected: str) -> None:
    assert Scrubber().scrub(text) == expected


@pytest.mark.parametrize("text", UNTOUCHED)
def test_text_without_secrets_is_left_alone(text: str) -> None:
    assert Scrubber().scrub(text) == text


@pytest.mark.parametrize("text", [case for case, _ in SCRUBBED_CASES] + UNTOUCHED)
def test_scrubbing_is_idempotent(text: str) -> None:
    scrubber = Scrubber()
    once = scrubber.scrub(text)
    assert scrubber.scrub(once) == once


def test_real_document_keeps_its_tool_options_and_loses_its_credentials() -> None:
    document = (DATA / "vmware_private_ai_excerpts.txt").read_text(encoding="utf-8")
    scrubbed = Scrubber().scrub(document)
    assert "{your_vSphere_password}" not in scrubbed and "password: <scrubbed>\n" in scrubbed
    assert "YOUR_KEY" not in scrubbed and "export NGC_API_KEY=<scrubbed>\n" in scrubbed
    assert scrubbed.count("http://xxxxx:<scrubbed>@IP:port") == 2
    assert "--password-stdin\n" in scrubbed
    assert "--max-tokens 1024 \\\n" in scrubbed and "--min-tokens 1024 \\\n" in scrubbed
    assert scrubbed.count("<scrubbed>") == 4


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (r"community (?P<secret>\S+)", "snmpwalk community public2 x", "snmpwalk community <scrubbed> x"),
        (r"BMC_USER=(\w+)", "BMC_USER=root ok", "BMC_USER=<scrubbed> ok"),
        (r"site-[a-z]+-internal", "host site-abc-internal up", "host <scrubbed> up"),
    ],
)
def test_configured_patterns_replace_the_named_group_first_group_or_whole_match(pattern: str, text: str, expected: str) -> None:
    assert Scrubber([pattern]).scrub(text) == expected


def test_configured_patterns_add_to_the_defaults_unless_defaults_are_off() -> None:
    assert Scrubber([r"vlan (\d+)"]).scrub("password=x vlan 42") == "password=<scrubbed> vlan <scrubbed>"
    assert Scrubber([r"vlan (\d+)"], defaults=False).scrub("password=x vlan 42") == "password=x vlan <scrubbed>"


@pytest.mark.parametrize(("pattern", "fragment"), [("(unclosed", "missing ), unterminated subpattern"), ("x*", "empty string")])
def test_a_bad_configured_pattern_is_a_usage_error(pattern: str, fragment: str) -> None:
    with pytest.raises(UsageError, match="invalid scrub pattern") as caught:
        Scrubber([pattern])
    assert fragment in str(caught.value) and pattern in str(caught.value)


def test_repeated_texts_are_answered_from_the_cache_and_stay_right() -> None:
    scrubber = Scrubber([r"site-[a-z]+-internal"])
    for _ in range(3):
        assert scrubber.scrub("password=hunter2 at site-abc-internal") == "password=<scrubbed> at <scrubbed>"
    assert scrubber.scrub("nothing here") == "nothing here"


def _ethtool_outputs() -> Iterator[str]:
    """40-line command outputs without secrets, a new text each time (so no cache answers)."""
    return iter("".join(f"\trx_queue_{q}_bytes: {n * q}\n" for q in range(40)) for n in range(10**7))


@pytest.mark.benchmark(group="scrub", max_time=0.2, min_rounds=20, warmup=False)
def test_bench_scrub_an_ethtool_statistics_output(benchmark: Any) -> None:
    """Every output leaving a run is scrubbed: the cost of one 40-line output."""
    scrubber, outputs = Scrubber([r"site-[a-z]+-internal"]), _ethtool_outputs()
    assert "<scrubbed>" not in benchmark(lambda: scrubber.scrub(next(outputs)))
