"""Discovery at the product's scale: 256 nodes x 8 GPUs x 8 NICs (8 rails), replayed from a recording.

The recording is synthesized in the formats of the real outputs the parsers are tested on (one PCIe switch
per GPU/NIC pair, S1 Appendix E; one subnet and routing table per rail, S0 2.4.1), written with the real
RecordingStore and read back through the real RecordingTransport, so the figures are discovery's own cost
(reading 15k recorded outputs, parsing, pairing, rails, rendering, validating), without SSH latency.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pytest_gpufabric.commands import sh
from pytest_gpufabric.discovery.assemble import Declared, assemble_site
from pytest_gpufabric.discovery.node_reader import pci_path_command
from pytest_gpufabric.discovery.probe import (
    AMD_GPUS, IP_RULES, IPV4_ADDRESSES, LLDP_NEIGHBORS, NVIDIA_GPUS, NVIDIA_TOPOLOGY, RDMA_LINKS, route_table_command,
)  # fmt: skip
from pytest_gpufabric.discovery.virtualization import DETECT_VIRT
from pytest_gpufabric.discovery.runner import discover_nodes
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.discovery.targets import targets_from_nodeset
from pytest_gpufabric.inventory import SshConfig, load_inventory
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber, create_recording
from pytest_gpufabric.transport.base import CommandResult

NODES, RAILS = 256, 8
GPU_BUSES = (0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB)  # one root port and PCIe switch per pair
PROFILES = ["hgx-h100-thor2"]


def _bdf(bus: int) -> str:
    return f"0000:{bus:02x}:00.0"


def _topology() -> str:
    """``nvidia-smi topo -m`` of the node in the layout of a real HGX H100 capture (fixtures/outputs/nvidia-smi-topo/
    sglang_issue30401_h100x8_driver570_nic_pix.txt): NIC r is PIX to GPU r, NODE within its NUMA node, SYS across."""
    def near(a: int, b: int) -> str:
        return "NODE" if a // 4 == b // 4 else "SYS"

    rows = ["\t" + "\t".join([*(f"GPU{i}" for i in range(RAILS)), *(f"NIC{i}" for i in range(RAILS))]) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"]
    for g in range(RAILS):
        cells = [" X " if g == h else "NV18" for h in range(RAILS)] + ["PIX" if g == r else near(g, r) for r in range(RAILS)]
        rows.append("\t".join([f"GPU{g}", *cells, "0-47" if g < 4 else "48-95", str(g // 4), "", "N/A"]))
    for r in range(RAILS):
        cells = ["PIX" if g == r else near(g, r) for g in range(RAILS)] + [" X " if r == o else near(r, o) for o in range(RAILS)]
        rows.append("\t".join([f"NIC{r}", *cells]))
    legend = "".join(f"  NIC{r}: bnxt_re{r}\n" for r in range(RAILS))
    return "\n".join(rows) + "\n\nLegend:\n\n  X    = Self\n  PIX  = Connection traversing at most a single PCIe bridge\n\nNIC Legend:\n\n" + legend


def _node_outputs(n: int) -> dict[str, tuple[str, int]]:
    host = f"{n // 250}.{n % 250 + 1}"
    out: dict[str, tuple[str, int]] = {
        AMD_GPUS: ("bash: line 1: rocm-smi: command not found\n", 127),
        NVIDIA_GPUS: ("index, pci.bus_id, name\n" + "".join(f"{i}, 0000{_bdf(b).upper()}, NVIDIA H200\n" for i, b in enumerate(GPU_BUSES)), 0),
        DETECT_VIRT: ("none\n", 1),
        NVIDIA_TOPOLOGY: (_topology(), 0),
        LLDP_NEIGHBORS: ("", 0),  # lldpd runs but sees no neighbor (as captured in fixtures/outputs/lldpctl-keyvalue)
        RDMA_LINKS: ("".join(f"link bnxt_re{r}/1 state ACTIVE physical_state LINK_UP netdev enp{GPU_BUSES[r] + 1}s0np0 \n" for r in range(RAILS)), 0),
        IPV4_ADDRESSES: ("".join(f"{r + 4}: enp{GPU_BUSES[r] + 1}s0np0    inet 10.{r}.{host}/16 brd 10.{r}.255.255 scope global enp{GPU_BUSES[r] + 1}s0np0\\       valid_lft forever preferred_lft forever\n" for r in range(RAILS)), 0),
        IP_RULES: ("0:\tfrom all lookup local\n" + "".join(f"{100 + r}:\tfrom 10.{r}.{host} lookup {101 + r}\n" for r in range(RAILS)) + "32766:\tfrom all lookup main\n", 0),
    }
    for r, gpu_bus in enumerate(GPU_BUSES):
        netdev, nic_bus, root = f"enp{gpu_bus + 1}s0np0", gpu_bus + 1, gpu_bus - 3
        out[route_table_command(101 + r)] = (f"default via 10.{r}.255.254 dev {netdev} proto static\n", 0)
        out[sh("ethtool", "-i", netdev)] = (f"driver: bnxt_en\nversion: 1.10.3-234.0.154.0\nfirmware-version: 234.0.145.0/pkg 234.0.145.0\nbus-info: {_bdf(nic_bus)}\n", 0)
        out[sh("ethtool", netdev)] = (f"Settings for {netdev}:\n\tSpeed: 400000Mb/s\n\tDuplex: Full\n\tLink detected: yes\n", 0)
        switch = f"/sys/devices/pci0000:{root:02x}/0000:{root:02x}:01.1/0000:{root + 1:02x}:00.0"
        out[pci_path_command(_bdf(gpu_bus))] = (f"{switch}/0000:{root + 2:02x}:00.0/{_bdf(gpu_bus)}\n", 0)
        out[pci_path_command(_bdf(nic_bus))] = (f"{switch}/0000:{root + 2:02x}:01.0/{_bdf(nic_bus)}\n", 0)
    return out


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("scale") / "recording"
    create_recording(directory, description="synthesized: 256 HGX nodes for the discovery benchmark")
    store = RecordingStore(directory, Scrubber(), run_id="bench")
    store.add_many([
        CommandResult(f"gpu{n:03d}", command, stdout, "", code, 0.0)
        for n in range(1, NODES + 1) for command, (stdout, code) in _node_outputs(n).items()
    ])  # fmt: skip
    return directory


def test_discovery_of_256_nodes_by_8_rails(recording: Path, tmp_path: Path, benchmark: pytest.FixtureRequest) -> None:
    targets = targets_from_nodeset(f"gpu[001-{NODES:03d}]")

    def discover() -> tuple[float, float, str]:
        started = time.perf_counter()
        transport = RecordingTransport(RecordingStore(recording, Scrubber()), RecordMode.NONE)
        outcomes = discover_nodes(targets, transport, workers=16)
        read_s = time.perf_counter() - started
        site = assemble_site([o.facts for o in outcomes if o.facts], Declared("scale", "ssh", SshConfig()), PROFILES)
        text = render_site(site, "bench")
        return read_s, time.perf_counter() - started - read_s, text

    if benchmark.disabled:  # type: ignore[attr-defined]  # pytest-benchmark is off under xdist: time it here
        read_s, build_s, text = discover()
    else:
        read_s, build_s, text = benchmark.pedantic(discover, rounds=1, iterations=1)  # type: ignore[attr-defined]
    path = tmp_path / "site.yaml"
    path.write_text(text)
    started = time.perf_counter()
    inventory = load_inventory(path, PROFILES)
    validate_s = time.perf_counter() - started
    nics = [nic for node in inventory.nodes for nic in node.nics]
    assert len(inventory.nodes) == NODES and len(nics) == NODES * RAILS
    assert all(nic.gpu == nic.rail for nic in nics)  # bnxt_re<r> below GPU <r>'s switch, on rail r
    assert "check the pairing" not in text and text.count("nvidia-smi topo -m agrees") == NODES * RAILS
    assert {nic.rail for nic in nics} == set(range(RAILS))
    figures = {"read_s": round(read_s, 2), "assemble_render_s": round(build_s, 2), "validate_s": round(validate_s, 2),
               "lines": text.count("\n")}  # fmt: skip
    if not benchmark.disabled:  # type: ignore[attr-defined]
        benchmark.extra_info.update(figures)  # type: ignore[attr-defined]
    print(f"256 nodes x 8 rails: {figures}")
