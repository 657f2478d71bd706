"""VMware guests and their ESX host (catalog VM-*); ESX facts are read over ssh from the guest."""

from __future__ import annotations

import pytest

from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.esxcli import parse_esxcli_kernel_settings
from pytest_gpufabric.parsers.vmware import parse_passthru_map, parse_vmx_settings
from pytest_gpufabric.targets import NodeTarget
from pytest_gpufabric.transport.base import CommandResult

ESX_SETTINGS = ("disableACSCheck", "atsSupport", "enableACSDTP2P")
NVIDIA_VENDOR = "10de"


def _on_esx(node: NodeTarget, gpufabric: CheckContext, *words: str) -> CommandResult:
    """Run a read-only command on the node's ESX host through ssh from the guest."""
    host = gpufabric.require(node.node.esx_host, "esx_host of the node in the inventory")
    result = gpufabric.run(node.id, sh("ssh", "-o", "BatchMode=yes", f"root@{host}", *words), cached=True)
    if result.exit_code != 0:
        gpufabric.require(None, f"`{' '.join(words)}` on ESX host {host} (exit {result.exit_code})")
    return result


@pytest.mark.check("VM-001")
def test_esx_acs_ats_settings(node: NodeTarget, gpufabric: CheckContext) -> None:
    values = []
    for name in ESX_SETTINGS:
        with gpufabric.part():  # a setting that cannot be read leaves the others' verdicts standing
            settings = gpufabric.parse(parse_esxcli_kernel_settings, _on_esx(node, gpufabric, "esxcli", "system", "settings", "kernel", "list", "-o", name))
            setting = gpufabric.require(settings.get(name), f"esxcli setting {name}")
            values.append((name.lower(), setting.runtime_bool, None, f"configured {setting.configured}, runtime {setting.runtime}"))
    gpufabric.expect_each(values)


@pytest.mark.check("VM-002")
def test_gpu_reset_method_flr(node: NodeTarget, gpufabric: CheckContext) -> None:
    entries = gpufabric.parse(parse_passthru_map, _on_esx(node, gpufabric, "cat", "/etc/vmware/passthru.map"))
    nvidia = gpufabric.require(next((e for e in entries if e.vendor_id == NVIDIA_VENDOR), None), f"passthru.map entry for vendor {NVIDIA_VENDOR}")
    gpufabric.expect("reset_method", nvidia.reset_method, detail=f"{nvidia.vendor_id} {nvidia.device_id} {nvidia.reset_method}")


@pytest.mark.check("VM-003")
def test_vm_advanced_settings(node: NodeTarget, gpufabric: CheckContext) -> None:
    # the VM is registered on its ESX host under the node's name: /vmfs/volumes/<datastore>/<name>/<name>.vmx
    vmx_path = f"/vmfs/volumes/*/{node.id}/{node.id}.vmx"
    vmx = gpufabric.parse(parse_vmx_settings, _on_esx(node, gpufabric, "sh", "-c", f"grep -h -i pciPassthru {vmx_path}"))
    size = vmx.get("pciPassthru.64bitMMIOSizeGB")
    gpufabric.expect_each([
        ("allow_p2p", vmx.get_bool("pciPassthru.allowP2P"), None, vmx_path),
        ("relax_acs_for_p2p", vmx.get_bool("pciPassthru.relaxACSforP2P"), None, vmx_path),
        ("use_64bit_mmio", vmx.get_bool("pciPassthru.use64bitMMIO"), None, vmx_path),
        ("mmio_size_gb", int(size) if size and size.isdigit() else None, None, f"{len(node.node.gpus)} GPUs"),
    ])
