"""A pytester project for plugin tests: site.yaml, a profile, a check file and a recording."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_gpufabric.recording import RecordingStore, Scrubber, create_recording
from pytest_gpufabric.reporting.acceptance.load import read_records
from pytest_gpufabric.transport.base import CommandResult

BASE_SITE: dict[str, Any] = {
    "version": 1,
    "site": "t",
    "profile": "p",
    "defaults": {
        "ssh": {"user": "root"},
        "platform": {"gpu_vendor": "amd", "gpu_model": "MI300X", "nic_vendor": "broadcom", "deployment": "baremetal"},
    },
    "nodes": [
        {
            "name": f"node0{n}",
            "address": f"10.0.0.{n}",
            "gpus": [{"index": 0, "pci": f"0000:{n}c:00.0"}],
            "nics": [
                {"name": "bnxt_re0", "netdev": "eth1", "ipv4": f"192.168.1.{n}/24", "pci": f"0000:{n}d:00.0",
                 "speed_gbps": 400, "rail": 0, "gpu": 0},
            ],
        }
        for n in (1, 2)
    ],
}

PROFILE = """profile: p
expectations:
  HOST-002:
    numa_balancing: {op: "==", value: 0, unit: "", source: "S0 2.6 item 15"}
  LNK-005:
    mtu: {op: "==", value: 9000, unit: bytes, source: "S0 2.6 item 10"}
"""

CHECKS = '''
import pytest
from pytest_gpufabric.commands import sh
from pytest_gpufabric.parsers.ip import parse_ip_link
from pytest_gpufabric.parsers.sysctl import parse_proc_sys_int


@pytest.mark.check("HOST-002")
def test_numa(node, gpufabric):
    value = gpufabric.parse(parse_proc_sys_int, gpufabric.run(node.id, "cat /proc/sys/kernel/numa_balancing"))
    gpufabric.expect("numa_balancing", value)


@pytest.mark.check("LNK-005")
def test_mtu(nic, gpufabric):
    links = gpufabric.parse(parse_ip_link, gpufabric.run(nic.node.name, sh("ip", "-o", "link", "show", "dev", nic.nic.netdev)))
    gpufabric.expect("mtu", gpufabric.require(links.get(nic.nic.netdev), "link").mtu)
'''


def ip_link_line(netdev: str, mtu: int) -> str:
    return f"4: {netdev}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu {mtu} qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether 7c:c2:55:00:00:01 brd ff:ff:ff:ff:ff:ff\n"


class Site:
    """A pytester project: site.yaml, thresholds/p.yaml, the check file, and a recording."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.data = copy.deepcopy(BASE_SITE)
        self.recording = pytester.path / "rec"
        (pytester.path / "thresholds").mkdir()
        (pytester.path / "thresholds" / "p.yaml").write_text(PROFILE)
        pytester.makepyfile(test_checks=CHECKS)

    def write(self) -> Path:
        path = self.pytester.path / "site.yaml"
        path.write_text(yaml.safe_dump(self.data, sort_keys=False))
        return path

    def record(self, outputs: dict[str, dict[str, str]]) -> None:
        """outputs: node -> command -> stdout."""
        create_recording(self.recording)
        store = RecordingStore(self.recording, Scrubber(), run_id="t")
        for node, commands in outputs.items():
            for command, stdout in commands.items():
                store.add(CommandResult(node, command, stdout, "", 0, 0.0), None)

    def healthy_recording(self, numa: dict[str, str] | None = None, mtu: dict[str, int] | None = None) -> None:
        numa = numa or {}
        mtu = mtu or {}
        self.record({
            node["name"]: {
                "cat /proc/sys/kernel/numa_balancing": numa.get(node["name"], "0\n"),
                **{f"ip -o link show dev {nic['netdev']}": ip_link_line(nic["netdev"], mtu.get(node["name"], 9000)) for nic in node["nics"]},
            }
            for node in self.data["nodes"]
        })

    def run(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest_subprocess(
            f"--cluster={self.write()}", f"--thresholds-dir={self.pytester.path / 'thresholds'}",
            f"--gpufabric-results={self.pytester.path / 'results'}", "-p", "no:cacheprovider", *args,
        )

    def results(self) -> list[dict[str, Any]]:
        """The item records of the run (not its run summary line)."""
        return read_records(self.pytester.path / "results" / "results.jsonl")[0]


