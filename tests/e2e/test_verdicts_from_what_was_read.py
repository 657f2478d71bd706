"""A check judges the facts it read: a decisive fact that fails stays a failure whatever command is missing after
it (GPU-006 with gdrdrv not loaded and no gdrcopy_sanity), and the same missing command after a fact that holds
leaves the item an error, never a pass. The real acceptance suite, replayed from a recording of two nodes that
answer as machines without some tools do (exit 127, or a kernel log that cannot be read)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_gpufabric.recording import RecordingStore, Scrubber, create_recording
from pytest_gpufabric.transport.base import CommandResult
from tests.outputs import read_output

REPO = Path(__file__).resolve().parents[2]
NIC_PCI = "0000:1d:00.0"
MISSING = ("", "bash: line 1: {}: command not found\n", 127)
LSMOD_HEAD = "Module                  Size  Used by\n"
ETHTOOL_DOWN = "Settings for eth1:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tAuto-negotiation: on\n\tLink detected: no\n"
ETHTOOL_UP_NO_SPEED = "Settings for eth1:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tAuto-negotiation: on\n\tLink detected: yes\n"
DMESG_DENIED = ("", "dmesg: read kernel buffer failed: Operation not permitted\n", 1)
CHECKS = ("test_gdrcopy", "test_bnxt_en_version", "test_ethernet_link_speed", "test_fabric_manager", "test_qos_applied",
          "test_arp_flux_avoided")


def _missing(program: str) -> tuple[str, str, int]:
    return MISSING[0], MISSING[1].format(program), MISSING[2]


def _lsmod(*modules: str) -> tuple[str, str, int]:
    return LSMOD_HEAD + "".join(f"{module:<24}{40960:>6}  0\n" for module in modules), "", 0


def _node(name: str, last_octet: int) -> dict[str, Any]:
    return {"name": name, "address": f"10.0.0.{last_octet}", "gpus": [{"index": 0, "pci": "0000:1c:00.0"}],
            "nics": [{"name": "bnxt_re0", "netdev": "eth1", "ipv4": f"192.168.1.{last_octet}/24", "pci": NIC_PCI,
                      "speed_gbps": 400, "rail": 0, "gpu": 0}]}


# n1: every decisive fact fails, and the command after it is missing; n2: the same facts hold.
ANSWERS: dict[str, dict[str, tuple[str, str, int]]] = {
    "n1": {
        "lsmod": _lsmod("nvidia", "ib_core"),
        "gdrcopy_sanity": _missing("gdrcopy_sanity"),
        "modinfo bnxt_en": ("", "modinfo: ERROR: Module bnxt_en not found.\n", 1),
        "ethtool eth1": (ETHTOOL_DOWN, "", 0),
        "systemctl is-active nvidia-fabricmanager": ("inactive\n", "", 3),
        "nvidia-smi -q": _missing("nvidia-smi"),
        f"niccli --dev {NIC_PCI} qos --ets --show": (read_output("niccli-qos", "s0_ets_show_unconfigured.txt"), "", 0),
        "dmesg": DMESG_DENIED,
        "ip -o -4 addr show": ("3: eth1    inet 192.168.1.1/24 brd 192.168.1.255 scope global eth1\\       valid_lft forever preferred_lft forever\n", "", 0),
        "sysctl net.ipv4.conf.all.arp_ignore net.ipv4.conf.all.arp_announce": _missing("sysctl"),
    },
    "n2": {
        "lsmod": _lsmod("nvidia", "gdrdrv", "bnxt_en", "ib_core"),
        "gdrcopy_sanity": _missing("gdrcopy_sanity"),
        "modinfo bnxt_en": _missing("modinfo"),
        "cat /sys/module/bnxt_en/version": ("", "cat: /sys/module/bnxt_en/version: Permission denied\n", 1),
        "ethtool eth1": (ETHTOOL_UP_NO_SPEED, "", 0),
        "systemctl is-active nvidia-fabricmanager": ("active\n", "", 0),
        "nvidia-smi -q": _missing("nvidia-smi"),
        f"niccli --dev {NIC_PCI} qos --ets --show": (read_output("niccli-qos", "s0_ets_show_configured.txt"), "", 0),
        "dmesg": DMESG_DENIED,
        "ip -o -4 addr show": ("3: eth1    inet 192.168.1.2/24 brd 192.168.1.255 scope global eth1\\       valid_lft forever preferred_lft forever\n", "", 0),
        "sysctl net.ipv4.conf.all.arp_ignore net.ipv4.conf.all.arp_announce": _missing("sysctl"),
    },
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("verdicts")
    site = {"version": 1, "site": "verdicts", "profile": "hgx-h100-thor2",
            "defaults": {"platform": {"gpu_vendor": "nvidia", "gpu_model": "H100", "nic_vendor": "broadcom",
                                      "deployment": "baremetal"}},
            "nodes": [_node("n1", 1), _node("n2", 2)]}
    (root / "site.yaml").write_text(yaml.safe_dump(site, sort_keys=False))
    create_recording(root / "rec")
    store = RecordingStore(root / "rec", Scrubber(), run_id="t")
    for node, answers in ANSWERS.items():
        for command, (stdout, stderr, code) in answers.items():
            store.add(CommandResult(node, command, stdout, stderr, code, 0.0), None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/acceptance", f"--cluster={root / 'site.yaml'}", f"--replay={root / 'rec'}",
         f"--gpufabric-results={root / 'results'}", "-p", "no:cacheprovider", "-q", "-k", " or ".join(CHECKS)],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [json.loads(line) for line in (root / "results" / "results.jsonl").read_text().splitlines()]
    return {row["node_id"].split("::")[1]: row for row in rows}


@pytest.mark.parametrize(("item", "judged", "missing"), [
    ("test_gdrcopy[n1]", "gdrdrv_loaded", "gdrcopy_sanity is not installed"),
    ("test_bnxt_en_version[n1]", "loaded", "n2: modinfo is not installed"),  # the version is compared across nodes
    ("test_ethernet_link_speed[n1/bnxt_re0]", "link_detected", "Speed of eth1 could not be measured"),
    ("test_fabric_manager[n1]", "service_state", "nvidia-smi"),
    ("test_qos_applied[n1/bnxt_re0]", "unconfigured", "dmesg"),
])
def test_a_fact_read_decides_whatever_is_missing_after_it(outcomes: dict[str, dict[str, Any]], item: str, judged: str,
                                                          missing: str) -> None:
    row = outcomes[item]
    assert row["outcome"] == "failed", row["message"]
    failing = [m for m in row["measurements"] if not m["passed"]]
    assert [m["name"] for m in failing] == [judged]
    assert "not measured:" in row["message"] and missing in row["message"]


@pytest.mark.parametrize("item", ["test_gdrcopy[n2]", "test_bnxt_en_version[n2]", "test_ethernet_link_speed[n2/bnxt_re0]",
                                  "test_fabric_manager[n2]", "test_qos_applied[n2/bnxt_re0]"])
def test_the_same_missing_command_after_a_fact_that_holds_is_an_error(outcomes: dict[str, dict[str, Any]], item: str) -> None:
    row = outcomes[item]
    assert row["outcome"] == "error", row["message"]
    assert row["measurements"] and all(m["passed"] for m in row["measurements"])  # what was read is kept


def test_a_fact_the_verdict_does_not_need_is_not_read(outcomes: dict[str, dict[str, Any]]) -> None:
    # HOST-006: every NIC in its own subnet decides; the ARP sysctls (missing here) matter only for shared subnets
    row = outcomes["test_arp_flux_avoided[n1]"]
    assert row["outcome"] == "passed"
    assert [c["command"] for c in row["commands"]] == ["ip -o -4 addr show"]
