"""`gpufabric discover` over the demo recording (MI300X bare-metal nodes and VMware H100 guests, outputs
built from the vendor documents): the site validates, loads back as written, and pairs every NIC with the
GPU the documents' topology tables pair it with."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.cli import main
from pytest_gpufabric.discovery.assemble import Declared, DiscoveredSite, assemble_site
from pytest_gpufabric.discovery.runner import INTERRUPTED, NodeOutcome, discover_nodes
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.discovery.targets import targets_from_nodeset
from pytest_gpufabric.expectations import apply_site_overrides, known_profiles, load_profile
from pytest_gpufabric.inventory import SshConfig, load_inventory
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "recordings" / "demo"
PROFILES = known_profiles(ROOT / "thresholds")

# S1 Appendix E (NCCL_TOPO_FILE of a VM with 8 GPUs and 8 Thor2 NICs): "GPU0, NIC0, GPU1, NIC1, ..., GPU7, NIC7",
# each GPU and NIC pair under one PCIe switch (bnxt_re<i> with GPU dev <i>).
S1_APPENDIX_E = {f"bnxt_re{i}": i for i in range(8)}
# S0 2.8.2: bnxt_re0 (0000:1d:00.0) is nearest to GPU0 (0000:1c:00.0), bnxt_re4 (0000:9f:00.0) to GPU4 (0000:9e:00.0).
S0_2_8_2 = {("bnxt_re0", "0000:1d:00.0"): ("0000:1c:00.0", 0), ("bnxt_re4", "0000:9f:00.0"): ("0000:9e:00.0", 4)}
MISSING_GPU = ("node03", 3)  # the demo's injected fault: GPU3 of node03 is missing from rocm-smi


@pytest.fixture(scope="module")
def site() -> DiscoveredSite:
    transport = RecordingTransport(RecordingStore(DEMO, Scrubber()), RecordMode.NONE)
    outcomes = discover_nodes(targets_from_nodeset("node[01-06]"), transport, workers=2)
    assert [outcome.error for outcome in outcomes] == [None] * 6
    return assemble_site([o.facts for o in outcomes if o.facts], Declared("demo", "ssh", SshConfig()), PROFILES)


def test_the_written_site_loads_back_as_the_discovered_model(site: DiscoveredSite, tmp_path: Path) -> None:
    path = tmp_path / "site.yaml"
    path.write_text(render_site(site, "test"))
    loaded = load_inventory(path, PROFILES)
    assert loaded.nodes == site.nodes
    assert (loaded.site, loaded.profile, loaded.transport) == ("demo", "mi300x-thor2", "ssh")


def test_every_nic_of_the_8_gpu_vmware_node_is_paired_as_s1_appendix_e_documents(site: DiscoveredSite) -> None:
    for name in ("node05", "node06"):
        node = next(n for n in site.nodes if n.name == name)
        assert (len(node.gpus), len(node.nics)) == (8, 8)
        assert {nic.name: nic.gpu for nic in node.nics} == S1_APPENDIX_E
        assert (node.platform.gpu_vendor, node.platform.deployment, node.profile) == ("nvidia", "vmware", "h100-thor2-vmware")


def test_the_mi300x_nodes_pair_as_s0_documents_except_where_the_gpu_is_missing(site: DiscoveredSite) -> None:
    netdev_of = {nic.name: nic.netdev for nic in site.nodes[0].nics}  # node04 names its RDMA devices by slot
    for node in site.nodes[:4]:
        by_pci = {nic.pci: nic for nic in node.nics}
        for (_, nic_pci), (gpu_pci, gpu_index) in S0_2_8_2.items():
            assert (by_pci[nic_pci].gpu, node.gpu(gpu_index).pci) == (gpu_index, gpu_pci)
        expected = {netdev_of[n]: g for n, g in S1_APPENDIX_E.items() if (node.name, g) != MISSING_GPU}
        assert {nic.netdev: nic.gpu for nic in node.nics if nic.gpu is not None} == expected
    unpaired = site.comments[("node03", "bnxt_re3", "gpu")]
    assert unpaired.startswith("unpaired: no GPU shares a PCIe bridge")


def test_nodes_that_disagree_with_the_majority_are_listed(site: DiscoveredSite) -> None:
    messages = {(f.node, f.message) for f in site.findings}
    assert ("node03", "7 GPUs (most nodes have 8)") in messages
    assert ("node03", "bnxt_re5 and bnxt_re6 share the subnet 192.168.6.0/24 (one rail)") in messages
    assert ("node04", "NIC names differ from most nodes: rdmap[29,67,86,105,159,195,213,231]s0") in messages
    assert ("node04", "rdmap86s0: no default route in its table 103") in messages
    assert ("node05", "platform differs from most nodes: nvidia H100, broadcom NICs, vmware") in messages


def test_the_command_writes_a_valid_site_and_folds_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site.yaml"
    code = main(["discover", "--nodes", "node[01-06]", "--replay", str(DEMO), "-o", str(out),
                 "--thresholds-dir", str(ROOT / "thresholds"), "--workers", "2"])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "node[05-06]: platform differs from most nodes" in printed.out
    assert "node01: 8 GPUs, 8 NICs" in printed.err
    assert main(["inventory", "validate", str(out), "--thresholds-dir", str(ROOT / "thresholds")]) == 0
    assert "# lowest common bridge 0000:1a:00.0 (PCIe switch)" in out.read_text()


def test_an_unrecorded_node_is_reported_and_the_others_are_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site.yaml"
    code = main(["discover", "--nodes", "node[01,99]", "--replay", str(DEMO), "-o", str(out),
                 "--thresholds-dir", str(ROOT / "thresholds")])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 1
    assert "node99: FAILED (no recording for node node99" in printed.err
    assert "not discovered (left out of the file):\n  node99: no recording for node node99" in printed.out
    assert [n.name for n in load_inventory(out, PROFILES).nodes] == ["node01"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--nodes", "node[01-"], "bad nodeset 'node[01-': missing bracket"),
        (["--nodes", "n1", "--platform", "gpu_vendor=intel"], "--platform 'gpu_vendor=intel': 'intel' is not allowed"),
        (["--nodes", "n1", "--site", "bad site"], "--site: "),
    ],
)
def test_bad_input_is_one_line(argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["discover", *argv, "--replay", str(DEMO), "-o", str(tmp_path / "s.yaml")]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_baseline_of_a_node_writes_overrides_that_fit_the_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site-overrides.yaml"
    assert main(["baseline", "--from", "node05", "--replay", str(DEMO), "-o", str(out),
                 "--thresholds-dir", str(ROOT / "thresholds")]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "DRV-008  nvidia_driver     570.133.20" in printed
    text = out.read_text()
    assert "    nvidia_driver: 570.133.20  # node05: `nvidia-smi --query-gpu=index,driver_version --format=csv`; as h100-thor2-vmware" in text
    site = tmp_path / "site.yaml"  # the demo's site with the overrides merged in: valid, and accepted by the profile
    site.write_text((DEMO / "site.yaml").read_text() + text[text.index("thresholds:"):])
    inventory = load_inventory(site, PROFILES, known_checks={check.id for check in load_catalog()})
    assert inventory.thresholds["DRV-008"]["nvidia_driver"] == "570.133.20"
    profiles = {name: load_profile(ROOT / "thresholds", name) for name in ("mi300x-thor2", "h100-thor2-vmware")}
    merged = apply_site_overrides(profiles, inventory.thresholds, str(site))
    assert "site override" in merged["h100-thor2-vmware"].get("DRV-008", "nvidia_driver").source
    assert len([name for values in inventory.thresholds.values() for name in values]) == 18


def test_baseline_leaves_out_what_the_nics_disagree_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site-overrides.yaml"
    assert main(["baseline", "--from", "node01", "--replay", str(DEMO), "-o", str(out),
                 "--thresholds-dir", str(ROOT / "thresholds")]) == 0  # fmt: skip
    text = out.read_text()
    assert "DRV-004" not in text.split("# not read")[0]
    assert "#   DRV-004.firmware_version: the NICs disagree (234.0.145.0 on 7 NICs; 232.0.155.7 from `ethtool -i enp86s0np0`)" in text
    assert "rocm_core: 6.3.1.60301-48~22.04  # node01: `dpkg -l rocm-core`; within mi300x-thor2: version>= 6.3.1" in text


def test_an_interrupted_discovery_keeps_the_nodes_read_so_far() -> None:
    store = RecordingStore(DEMO, Scrubber())
    replay = RecordingTransport(store, RecordMode.NONE)
    seen: list[str] = []

    def interrupt_after_first(outcome: NodeOutcome) -> None:
        seen.append(outcome.target.name)
        raise KeyboardInterrupt

    outcomes = discover_nodes(targets_from_nodeset("node[01-06]"), replay, workers=1, progress=interrupt_after_first)
    read = [o.target.name for o in outcomes if o.facts is not None]
    assert read == seen == ["node01"]
    assert {o.error for o in outcomes if o.facts is None} == {INTERRUPTED}
