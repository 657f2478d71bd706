"""The configuration checks replayed on the bundled demo: every id passes somewhere and fails somewhere, each
failure with measured, expected, source and hint; and no recorded command changes a node's settings."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from demo_replay import replay_records

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
CONFIG_SUITES = [f"suites/acceptance/test_{area}.py" for area in ("drivers", "gpu", "nvm", "qos", "pcie", "host", "link", "vmware")]
PREFIXES = ("DRV-", "GPU-", "NVM-", "QOS-", "PCI-", "HOST-", "LNK-", "VM-")
OUT_OF_SCOPE = {"HOST-008"}

SETTERS = [
    re.compile(pattern)
    for pattern in (
        r"--setoption", r"\bsetpci\b.*=", r"\bsysctl\b.*(\s-w\b|\s--write\b)", r"\becho\b.*>", r"\bmodprobe\b", r"\brmmod\b",
        r"\binsmod\b", r"\bip\s+(link|addr|route|rule)\s+(set|add|del|change|replace|flush)\b", r"\btee\b",
        r"(?<![0-9&])>(?!&)", r"\bniccli\b.*--set", r"\bniccli\b.*\b(nvm|qos)\b.*--(ets|pfc|app)\b(?!.*--show)",
        r"\bmkdir\b", r"\brm\b", r"\besxcli\b.*\bset\b", r"\bsystemctl\s+(start|stop|restart|enable|disable)\b",
        r"\bethtool\s+-[sKGAL]\b", r"\bmlxconfig\b", r"\bupdate-grub\b",
    )
]


def catalog_ids() -> set[str]:
    catalog = yaml.safe_load((REPO / "pytest_gpufabric" / "catalog.yaml").read_text(encoding="utf-8"))
    return {c["id"] for c in catalog["checks"] if c["id"].startswith(PREFIXES) and c["id"] not in OUT_OF_SCOPE}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return replay_records(CONFIG_SUITES, tmp_path_factory.mktemp("config"), workers=0)


def test_every_check_in_scope_passes_and_fails_somewhere(records: list[dict[str, Any]]) -> None:
    outcomes = Counter((r["check_id"], r["outcome"]) for r in records)
    for check in sorted(catalog_ids()):
        assert outcomes[(check, "passed")] >= 1, f"{check}: no passed item"
        assert outcomes[(check, "failed")] >= 1, f"{check}: no failed item"


def test_no_item_errors(records: list[dict[str, Any]]) -> None:
    assert [r["node_id"] for r in records if r["outcome"] not in ("passed", "failed", "skipped")] == []


def test_every_failure_carries_measured_expected_source_and_hint(records: list[dict[str, Any]]) -> None:
    failed = [r for r in records if r["outcome"] == "failed"]
    assert failed
    for record in failed:
        assert record["measured"] is not None and record["expected"] and record["source"] and record["hint"], record["node_id"]


def recorded_commands() -> list[str]:
    commands = []
    for path in sorted((DEMO / "nodes").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        commands += [entry["command"] for entry in data.get("commands", []) if isinstance(entry, dict) and "command" in entry]
    return commands


# The suite's own scratch files (benchmark logs under /tmp/gpufabric-*) may be written and removed; that
# changes no setting of the node.
# A node script's own folder ``d`` (``mktemp -d /tmp/gpufabric-node.XXXXXX``, checks/node_scripts.py) and the PID files
# of its servers ("$pid", /tmp/gpufabric-* too) are the same kind of scratch.
OWN_SCRATCH = re.compile(r"(\d?>>?\s*|\brm\s+-r?f\s+)(/tmp/gpufabric-\S+|\"\$d(/[^\"]*)?\"|\"\$pid\")|2>&1|\d?>\s*/dev/null"
                         r"|\bmktemp -d /tmp/gpufabric-\S+|< /dev/null"
                         r"|'(?:server|client) [^']*'")  # a node script's quoted program labels ("node01/x->node02/x")


def setters_in(command: str) -> list[str]:
    """The setter patterns a command matches, once writes to the suite's own scratch files are set aside."""
    reads = OWN_SCRATCH.sub(" ", command)
    return [p.pattern for p in SETTERS if p.search(reads)]


def test_recorded_commands_are_read_only() -> None:
    commands = recorded_commands()
    assert len(commands) > 100, "the demo recording lists its commands"
    offending = {c: setters_in(c) for c in commands if setters_in(c)}
    assert offending == {}


@pytest.mark.parametrize("command", [
    "niccli --dev 1 nvm --setoption dcbx_mode --scope 0 --value 0", "setpci -s 0000:1d:00.0 ECAP_ACS+6.w=0000",
    "sysctl -w kernel.numa_balancing=0", "echo -n 1 > cc_mode", "modprobe bnxt_re", "ip link set dev eth0 mtu 9000",
    "echo 0 | tee /proc/sys/kernel/numa_balancing", "cat x > /etc/bnxt_re/bnxt_re.conf", "niccli -i 1 qos --set ets",
    "mkdir -p /sys/kernel/config/bnxt_re/bnxt_re0", "rm -f /etc/bnxt_re/bnxt_re.conf", "echo 1 > /tmp/gpufabric-x; echo 2 > cc_mode",
])
def test_the_setter_scan_recognizes_documented_setters(command: str) -> None:
    assert setters_in(command)


@pytest.mark.parametrize("command", ["ibv_devinfo 2>&1", "niccli --dev 0000:1d:00.0 qos --ets --show", "sysctl net.ipv4.conf.all.arp_ignore", "lspci -vvv",
                                     "kill 41000 2>/dev/null; rm -f /tmp/gpufabric-PERF-001-x.log; true"])
def test_the_setter_scan_passes_reads(command: str) -> None:
    assert setters_in(command) == []
