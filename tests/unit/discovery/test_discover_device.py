"""Discovery on the real capture of a cloud H200 machine (recordings/device-h200-discovery): one GPU on a flat
virtual PCIe tree, no RDMA NIC, most Linux tools absent; what it could not read is said, never guessed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_gpufabric.discovery.assemble import Declared, assemble_site
from pytest_gpufabric.discovery.baseline import read_baseline
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.discovery.probe import probe_node
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.inventory import SshConfig, load_inventory
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber

# recorded before discovery asked LLDP: replayed without it (lldp=False), as `gpufabric discover --no-lldp` does
ROOT = Path(__file__).resolve().parents[3]
DEVICE = ROOT / "recordings" / "device-h200-discovery"
HGX_PROFILE = "hgx-h100-thor2"  # the bare-metal NVIDIA HGX profile (H100/H200 + Thor2)


def replay() -> RecordingTransport:
    return RecordingTransport(RecordingStore(DEVICE, Scrubber()), RecordMode.NONE)


def test_the_h200_gpu_is_found_and_the_missing_tools_are_named() -> None:
    facts = probe_node(replay(), "h200", "localhost", lldp=False)
    assert [(gpu.index, gpu.pci, gpu.path.chain if gpu.path else None) for gpu in facts.gpus] == [
        (0, "0000:00:06.0", ("0000:00:06.0",))
    ]
    assert (facts.platform.gpu_vendor, facts.platform.gpu_model, facts.platform.virtualization) == ("nvidia", "H200", "unknown")
    assert facts.nics == ()
    assert [note.split("`")[1] for note in facts.notes] == ["ip -o -4 addr show", "ip rule show", "rdma link show", "systemd-detect-virt"]


def test_the_written_site_loads_with_the_bare_metal_nvidia_profile_and_flags_the_deployment(tmp_path: Path) -> None:
    facts = probe_node(replay(), "h200", "localhost", lldp=False)
    site = assemble_site([facts], Declared("device", "local", SshConfig()), ["h100-thor2-vmware", HGX_PROFILE, "mi300x-thor2"])
    assert site.profile == HGX_PROFILE
    path = tmp_path / "site.yaml"
    path.write_text(render_site(site, "device"))
    loaded = load_inventory(path, [HGX_PROFILE])
    assert loaded.nodes == site.nodes and loaded.nodes[0].nics == ()
    assert "# REVIEW deployment: systemd-detect-virt did not answer; written as baremetal" in path.read_text()


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
