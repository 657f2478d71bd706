"""Discovery on the real captures of cloud H200 machines (KVM guests): one GPU on a flat virtual PCIe tree, no
RDMA NIC, most Linux tools absent; what it could not read is said, never guessed, and the deployment is told
from what the machine shows.

recordings/device-h200-discovery holds the discovery commands of its time (before the DMI, CPU-flag and
kernel-log steps of the virtualization existed); recordings/device-h200 and device-h200-1gpu hold the acceptance
suite's commands, the kernel log among them. Where the discovery recording lacks a command, the guest's own
suite recording answers it; once the discovery recording is made again, it answers everything itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.discovery.assemble import Declared, assemble_site
from pytest_gpufabric.discovery.baseline import read_baseline
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.discovery.probe import probe_node
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.discovery.virtualization import detect_virtualization
from pytest_gpufabric.errors import RecordingError
from pytest_gpufabric.inventory import SshConfig, load_inventory
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber
from pytest_gpufabric.transport.base import CommandResult

# recorded before discovery asked LLDP: replayed without it (lldp=False), as `gpufabric discover --no-lldp` does
ROOT = Path(__file__).resolve().parents[3]
DEVICE = ROOT / "recordings" / "device-h200-discovery"
SUITE_RECORDINGS = {"device-h200": ROOT / "recordings" / "device-h200" / "recording",
                    "device-h200-1gpu": ROOT / "recordings" / "device-h200-1gpu" / "recording"}
HGX_PROFILE = "hgx-h100-thor2"  # the NVIDIA HGX profile (H100/H200 + Thor2); a guest takes each check's guest meaning
PROFILES = ["h100-thor2-vmware", HGX_PROFILE, "mi300x-thor2"]


def replay(directory: Path = DEVICE) -> RecordingTransport:
    return RecordingTransport(RecordingStore(directory, Scrubber()), RecordMode.NONE)


class FirstThatRecorded:
    """Replays of one machine kind, asked in order: the first recording that holds the command answers it."""

    def __init__(self, *transports: RecordingTransport) -> None:
        self.transports = transports

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None) -> CommandResult:
        for transport in self.transports[:-1]:
            try:
                return transport.run(node, command, timeout_s, item=item)
            except RecordingError:
                continue
        return self.transports[-1].run(node, command, timeout_s, item=item)

    def close(self) -> None:
        for transport in self.transports:
            transport.close()


def h200_guest() -> FirstThatRecorded:
    return FirstThatRecorded(replay(), replay(SUITE_RECORDINGS["device-h200-1gpu"]))


def test_the_h200_gpu_is_found_and_the_missing_tools_are_named() -> None:
    facts = probe_node(replay(), "h200", "localhost", lldp=False)
    assert [(gpu.index, gpu.pci, gpu.path.chain if gpu.path else None) for gpu in facts.gpus] == [
        (0, "0000:00:06.0", ("0000:00:06.0",))
    ]
    assert (facts.platform.gpu_vendor, facts.platform.gpu_model) == ("nvidia", "H200")
    assert facts.nics == () and facts.gaps == ()
    noted = [note.split("`")[1] for note in facts.notes]
    assert noted[:4] == ["ip -o -4 addr show", "ip rule show", "rdma link show", "systemd-detect-virt"]


@pytest.mark.parametrize("recording", sorted(SUITE_RECORDINGS))
def test_the_recorded_h200_guests_are_kvm_guests(recording: str) -> None:
    """The kernel's boot line 'Hypervisor detected: KVM' in the guest's own kernel log names the hypervisor
    where systemd-detect-virt is absent and the guest has no DMI ('DMI not present or invalid')."""
    virtualization = detect_virtualization(NodeReader(replay(SUITE_RECORDINGS[recording]), "h200", 60.0))
    assert (virtualization.word, virtualization.guest) == ("kvm", True)
    assert virtualization.steps[-1] == "kernel log: 'Hypervisor detected: KVM'"
    assert virtualization.describe().startswith("a KVM guest (kernel log: 'Hypervisor detected: KVM'")


def test_discovery_writes_the_h200_guest_as_a_kvm_guest_with_each_step_and_the_hgx_profile(tmp_path: Path) -> None:
    facts = probe_node(h200_guest(), "h200", "localhost", lldp=False)
    assert (facts.platform.gpu_vendor, facts.platform.gpu_model, facts.platform.virtualization) == ("nvidia", "H200", "kvm")
    site = assemble_site([facts], Declared("device", "local", SshConfig()), PROFILES)
    assert (site.profile, site.nodes[0].platform.deployment) == (HGX_PROFILE, "guest")
    path = tmp_path / "site.yaml"
    path.write_text(render_site(site, "device"))
    loaded = load_inventory(path, [HGX_PROFILE])
    assert loaded.nodes == site.nodes and loaded.nodes[0].nics == ()
    comment = next(line for line in path.read_text().splitlines() if "deployment guest" in line)
    assert comment.startswith("  # deployment guest: a KVM guest (kernel log: 'Hypervisor detected: KVM';")
    assert "systemd-detect-virt did not answer" in comment


def test_baseline_reads_the_nvidia_driver_and_names_what_the_image_lacks() -> None:
    transport = replay()
    facts = probe_node(transport, "h200", "localhost", lldp=False)
    reader = NodeReader(transport, "h200", 60.0)
    readings = read_baseline(reader, facts)
    assert [(r.check, r.name, r.value) for r in readings] == [("DRV-008", "nvidia_driver", "580.159.04")]
    assert any(note.startswith("`modinfo bnxt_re` exited 127") for note in reader.notes)


def test_local_transport_without_nodes_reads_this_machine_under_its_host_name(tmp_path: Path, monkeypatch: Any) -> None:
    import socket

    from pytest_gpufabric.cli import main

    monkeypatch.setattr(socket, "gethostname", lambda: "h200.example.internal")  # the capture's machine
    out = tmp_path / "site.yaml"
    assert main(["discover", "--transport", "local", "--no-lldp", "--replay", str(DEVICE), "-o", str(out)]) == 0
    node = load_inventory(out, [HGX_PROFILE]).nodes[0]
    assert (node.name, node.address) == ("h200", "127.0.0.1")  # the host name's first label; nothing connects to it
    assert load_inventory(out, [HGX_PROFILE]).transport == "local"
    baseline = tmp_path / "overrides.yaml"
    assert main(["baseline", "--transport", "local", "--replay", str(DEVICE), "-o", str(baseline)]) == 0
    text = baseline.read_text()
    assert "DRV-008.nvidia_driver = 580.159.04" in text and "read on h200" in text
    assert "COLL-001.busbw_8gb_gbs: no documented value for 1 x H200, none proposed (one GPU moves no data" in text


def test_without_nodes_and_without_local_transport_the_error_says_what_to_give(capsys: Any) -> None:
    from pytest_gpufabric.cli import main

    assert main(["discover", "-o", "/nonexistent/site.yaml"]) == 1
    assert "give the nodes to read: --nodes NODESET or --hostfile FILE (or --transport local" in capsys.readouterr().err
    assert main(["baseline", "-o", "/nonexistent/o.yaml"]) == 1
    assert "--from NODE (or --transport local for this machine)" in capsys.readouterr().err
