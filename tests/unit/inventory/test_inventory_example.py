"""The annotated example inventory loads into the expected model; the model is immutable, hashable, picklable."""

from __future__ import annotations

import dataclasses
import pickle
from ipaddress import IPv4Address, IPv4Interface

import pytest
from inventory_files import EXAMPLE, EXAMPLE_VMWARE, KNOWN_PROFILES, MINIMAL, WriteSite

from pytest_gpufabric.inventory import Inventory, SshConfig, load_inventory, validate_inventory_file


def test_example_top_level(example: Inventory) -> None:
    assert (example.version, example.site, example.profile, example.transport) == (
        1, "demo-mi300x", "mi300x-thor2", "ssh",
    )  # fmt: skip
    assert dict(example.thresholds) == {"PERF-002": {"nic_nic_bw_gbps": 390}}
    assert example.scrub_patterns == (r"(?i)token=\S+",)
    assert [node.name for node in example.nodes] == ["node01", "node02"]
    assert [(switch.name, switch.os) for switch in example.switches] == [("leaf1", "arista"), ("leaf2", "sonic")]


def test_example_nodes_have_eight_gpus_and_nics_in_file_order(example: Inventory) -> None:
    for node in example.nodes:
        assert [gpu.index for gpu in node.gpus] == list(range(8))
        assert [nic.name for nic in node.nics] == [f"bnxt_re{i}" for i in range(8)]
        assert [nic.rail for nic in node.nics] == list(range(8))
        assert [nic.gpu for nic in node.nics] == list(range(8))


def test_example_nic_fields(example: Inventory) -> None:
    nic = example.node("node02").nic("bnxt_re4")
    assert nic.netdev == "enp159s0np0"
    assert nic.ipv4 == IPv4Interface("192.168.4.2/24")
    assert nic.address == IPv4Address("192.168.4.2")
    assert (nic.pci, nic.speed_gbps, nic.gateway, nic.route_table) == (
        "0000:9f:00.0", 400, IPv4Address("192.168.4.254"), 105,
    )  # fmt: skip
    assert (nic.switch, nic.switch_port) == ("leaf2", "Ethernet5/1")
    assert example.node("node01").gpu(4).pci == "0000:9e:00.0"


def test_defaults_merge_under_node_and_switch_ssh(example: Inventory) -> None:
    common = {"key": "~/.ssh/id_ed25519", "known_hosts": "~/.ssh/known_hosts"}
    assert example.node("node01").ssh == SshConfig(**common)
    assert example.switch("leaf1").ssh == SshConfig(user="admin", **common)
    assert example.node("node02").address == "node02.cluster.example"


def test_builtin_defaults_apply_when_nothing_is_given(write_site: WriteSite) -> None:
    inventory = load_inventory(
        write_site(
            "version: 1\nsite: s\nprofile: mi300x-thor2\nnodes:\n"
            "  - {name: n1, address: fd00::1, platform: {gpu_vendor: none, gpu_model: none,"
            " nic_vendor: other, deployment: baremetal}}\n"
        ),
        KNOWN_PROFILES,
    )
    node = inventory.nodes[0]
    assert node.ssh == SshConfig(
        user="root", port=22, key=None, sudo=False, known_hosts=None, connect_timeout_s=10, command_timeout_s=120
    )
    assert (inventory.transport, inventory.switches, node.gpus, node.nics, node.esx_host) == ("ssh", (), (), (), None)
    assert (dict(inventory.thresholds), inventory.scrub_patterns) == ({}, ())


def test_node_values_override_defaults(minimal_text: str, write_site: WriteSite) -> None:
    inventory = load_inventory(write_site(minimal_text), KNOWN_PROFILES)
    assert inventory.node("node02").ssh == SshConfig(port=2222, key="~/.ssh/id_ed25519")
    assert inventory.node("node01").ssh.port == 22


def test_unquoted_scalars_are_taken_as_written_for_strings(write_site: WriteSite) -> None:
    """YAML 1.1 would read 0000:05:00.0 as a sexagesimal float and 01 as an integer; string keys keep the text."""
    inventory = load_inventory(
        write_site(
            "version: 1\nsite: 2024\nprofile: mi300x-thor2\n"
            "defaults: {platform: {gpu_vendor: amd, gpu_model: MI300X, nic_vendor: broadcom, deployment: baremetal}}\n"
            "nodes:\n  - name: 01\n    address: 10.0.0.1\n    gpus: [{index: 0, pci: 0000:05:00.0}]\n"
        ),
        KNOWN_PROFILES,
    )
    assert (inventory.site, inventory.nodes[0].name, inventory.nodes[0].gpus[0].pci) == ("2024", "01", "0000:05:00.0")


def test_pci_addresses_are_kept_in_lower_case(write_site: WriteSite, minimal_text: str) -> None:
    inventory = load_inventory(write_site(minimal_text.replace('"0000:1c:00.0"', '"0000:1C:00.0"')), KNOWN_PROFILES)
    assert inventory.node("node01").gpu(0).pci == "0000:1c:00.0"


def test_yaml_merge_keys_are_applied(write_site: WriteSite) -> None:
    path = write_site(
        "version: 1\nsite: s\nprofile: mi300x-thor2\n"
        "defaults:\n"
        "  platform: &amd {gpu_vendor: amd, gpu_model: MI300X, nic_vendor: broadcom, deployment: baremetal}\n"
        "nodes:\n  - name: n1\n    address: 10.0.0.1\n    platform: {<<: *amd, gpu_model: MI325X}\n"
    )
    assert load_inventory(path, KNOWN_PROFILES).nodes[0].platform.gpu_model == "MI325X"


@pytest.mark.parametrize(
    ("platform", "tags"),
    [
        pytest.param("{gpu_vendor: amd, nic_vendor: broadcom, deployment: baremetal}",
                     {"amd", "broadcom", "baremetal"}, id="amd-broadcom-baremetal"),
        pytest.param("{gpu_vendor: nvidia, nic_vendor: broadcom, deployment: vmware}",
                     {"nvidia", "broadcom", "vmware"}, id="nvidia-broadcom-vmware"),
        pytest.param("{gpu_vendor: none, nic_vendor: broadcom, deployment: baremetal}",
                     {"broadcom", "baremetal"}, id="no-gpu"),
        pytest.param("{gpu_vendor: amd, nic_vendor: other, deployment: baremetal}",
                     {"amd", "baremetal"}, id="other-nic"),
    ],
)  # fmt: skip
def test_platform_tags(write_site: WriteSite, platform: str, tags: set[str]) -> None:
    path = write_site(
        "version: 1\nsite: s\nprofile: mi300x-thor2\ndefaults: {platform: {gpu_model: X}}\n"
        f"nodes:\n  - {{name: n1, address: 10.0.0.1, platform: {platform}}}\n"
    )
    assert load_inventory(path, KNOWN_PROFILES).nodes[0].platform_tags == frozenset(tags)


def test_switch_platform_tags(example: Inventory) -> None:
    assert example.switch("leaf2").platform_tags == frozenset({"sonic"})


@pytest.mark.parametrize(
    ("lookup", "argument"),
    [
        pytest.param(lambda inventory, name: inventory.node(name), "node09", id="node"),
        pytest.param(lambda inventory, name: inventory.switch(name), "leaf9", id="switch"),
        pytest.param(lambda inventory, name: inventory.nodes[0].nic(name), "bnxt_re9", id="nic"),
        pytest.param(lambda inventory, index: inventory.nodes[0].gpu(index), 9, id="gpu"),
    ],
)
def test_lookup_of_a_missing_item_raises_key_error(example: Inventory, lookup, argument) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KeyError, match=str(argument)):
        lookup(example, argument)


def test_loading_is_deterministic() -> None:
    first, second = (load_inventory(EXAMPLE, KNOWN_PROFILES) for _ in range(2))
    assert first == second
    assert hash(first) == hash(second)
    assert repr(first) == repr(second)


def test_inventory_is_immutable(example: Inventory) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        example.nodes[0].nics[0].rail = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        example.thresholds["PERF-002"]["nic_nic_bw_gbps"] = 1  # type: ignore[index]


VALID_FILES = [
    pytest.param(EXAMPLE, id="example"),
    pytest.param(EXAMPLE_VMWARE, id="example-vmware"),
    pytest.param(MINIMAL, id="minimal"),
]


def test_vmware_example_nodes_name_their_esx_hosts() -> None:
    inventory = load_inventory(EXAMPLE_VMWARE, KNOWN_PROFILES)
    assert [(node.address, node.esx_host) for node in inventory.nodes] == [
        ("vm01.ai.example", "esx01.ai.example"), ("fd00:10::12", "10.0.1.2"),
    ]  # fmt: skip
    assert inventory.nodes[0].platform_tags == frozenset({"nvidia", "broadcom", "vmware"})
    assert inventory.nodes[0].ssh == SshConfig(user="vmadmin", sudo=True, connect_timeout_s=5.5)
    assert inventory.nodes[1].nic("bnxt_re1").gateway == IPv4Address("10.1.1.2")  # /31: both ends are hosts


@pytest.mark.parametrize("path", VALID_FILES)
def test_pickle_round_trip_keeps_equality_and_hash(path) -> None:  # type: ignore[no-untyped-def]
    inventory = load_inventory(path, KNOWN_PROFILES)
    restored = pickle.loads(pickle.dumps(inventory))
    assert restored == inventory
    assert hash(restored) == hash(inventory)
    assert restored.nodes[0].nics[0].address == inventory.nodes[0].nics[0].address


def test_model_objects_work_as_parametrize_values(example: Inventory) -> None:
    nics = {(node.name, nic) for node in example.nodes for nic in node.nics}
    assert len(nics) == 16


@pytest.mark.parametrize("path", VALID_FILES)
def test_valid_inventories_have_no_problems(path) -> None:  # type: ignore[no-untyped-def]
    assert validate_inventory_file(path, KNOWN_PROFILES) == []
