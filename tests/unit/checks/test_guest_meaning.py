"""What the node checks mean in another hypervisor's guest (catalog `guest`, deployment guest)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_gpufabric.applicability import GUEST, Applicability
from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.checks.host import guest_iommu_mode, iommu_groups_command
from pytest_gpufabric.inventory.model import DEPLOYMENTS, Node, Platform, SshConfig
from pytest_gpufabric.parsers.iommu_group import parse_iommu_groups
from pytest_gpufabric.targets import NodeTarget
from tests.outputs import read_output

VIRTIO_NET = "0000:00:03.0"  # the development host's virtio network device (a KVM guest without a virtual IOMMU)


def test_a_device_in_no_iommu_group_is_read_from_a_real_guest() -> None:
    groups = parse_iommu_groups(read_output("sysfs-iommu-group", "devhost_virtio_net_no_group.txt")).facts
    assert groups == {VIRTIO_NET: None}
    assert guest_iommu_mode(groups, [VIRTIO_NET]) == ("off", f"{VIRTIO_NET}: in no IOMMU group")


@pytest.mark.parametrize(("types", "mode"), [
    ({"identity"}, "passthrough"),
    ({"DMA"}, "translated"),
    ({"DMA-FQ"}, "translated"),
    ({"identity", "DMA-FQ"}, "translated"),
    ({None, "identity"}, "passthrough"),
    ({"blocked"}, "blocked"),
])
def test_the_group_types_of_the_kernel_abi_give_the_mode(types: set[str | None], mode: str) -> None:
    """Linux Documentation/ABI/testing/sysfs-kernel-iommu_groups: DMA and DMA-FQ translate, identity does not."""
    gpus = [f"0000:0{index}:00.0" for index in range(len(types))]
    groups = dict(zip(gpus, sorted(types, key=str)))
    assert guest_iommu_mode(groups, gpus)[0] == mode


def test_a_gpu_that_is_not_there_is_no_mode() -> None:
    assert guest_iommu_mode({}, ["0000:00:06.0"]) == (None, "0000:00:06.0: no such PCI device")


def test_the_command_reads_each_gpus_vendor_and_group_type() -> None:
    assert iommu_groups_command(["0000:00:06.0"]) == (
        "grep -H . /sys/bus/pci/devices/0000:00:06.0/vendor /sys/bus/pci/devices/0000:00:06.0/iommu_group/type")


def test_every_check_not_judged_in_a_guest_says_why_with_its_source() -> None:
    catalog = load_catalog()
    assert GUEST in DEPLOYMENTS
    for spec in catalog:
        deployments = set(spec.applies) & set(DEPLOYMENTS)
        if deployments and GUEST not in deployments and spec.scope in ("node", "gpu", "nic", "nic_gpu_pair"):
            assert spec.guest and "(" in spec.guest, f"{spec.id} skips a guest without saying why"
    assert GUEST in catalog.get("HOST-001").applies and "iommu_groups" in (catalog.get("HOST-001").guest or "")
    assert "Fabric Manager User Guide" in (catalog.get("GPU-004").guest or "")


def test_a_check_not_judged_in_a_guest_is_skipped_with_the_catalogs_reason() -> None:
    guest = Node("h200", "127.0.0.1", SshConfig(), Platform("nvidia", "H200", "other", "guest"))
    profile = SimpleNamespace(not_applicable={})
    applicability = Applicability(SimpleNamespace(inventory=SimpleNamespace(nodes=(guest,)), profiles={}, profile=profile))
    catalog = load_catalog()
    assert applicability.reason(catalog.get("VM-001"), NodeTarget(guest)).startswith("VM-001 in a guest: not judged")
    assert applicability.reason(catalog.get("HOST-001"), NodeTarget(guest)) is None
