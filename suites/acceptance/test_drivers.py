"""Software and drivers of each node (catalog DRV-*)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.drivers import (
    PEER_MEMORY_SYMBOL,
    consistency_detail,
    devices_not_listed,
    dkms_installed,
    firmware_version,
    loaded_for_running_kernel,
    missing_modules,
    peer_memory_provider,
)
from pytest_gpufabric.checks.node_facts import loaded_modules, module_version, tool_missing
from pytest_gpufabric.checks.qos import CONF_KEYS
from pytest_gpufabric.checks.rdma_facts import rdma_links
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.inventory import Node
from pytest_gpufabric.parsers.bnxt_re_conf import parse_bnxt_re_conf
from pytest_gpufabric.parsers.ethtool import parse_ethtool_driver
from pytest_gpufabric.parsers.ibverbs import parse_ibv_devinfo
from pytest_gpufabric.parsers.kallsyms import KernelSymbols, parse_kallsyms
from pytest_gpufabric.parsers.kmod import parse_dkms_status
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_query
from pytest_gpufabric.parsers.packages import parse_dpkg_list
from pytest_gpufabric.targets import NicTarget, NodeTarget

GPU_DRIVERS = {"amd": "amdgpu", "nvidia": "nvidia"}
ABI_HINT = (
    "libibverbs loads the distribution's inbox libbnxt_re, which does not support the kernel ABI of the "
    "release bnxt_re driver: rename the inbox library (e.g. /usr/lib/x86_64-linux-gnu/libibverbs/libbnxt_re-rdmav34.so) "
    "and install the release libbnxt_re (S0 5.1 FAQ 6; S3 'Installing the RoCE Library')"
)


def _check_module(node: NodeTarget, gpufabric: CheckContext, peers: tuple[Node, ...], module: str) -> None:
    """Loaded, at the profile's version, and the same version as on every node of the profile."""
    with gpufabric.part():
        loaded = not missing_modules(loaded_modules(gpufabric, node.id), [module])
        gpufabric.judge("loaded", loaded, detail=f"loaded modules of {node.id}")
    with gpufabric.part():
        versions = {peer.name: module_version(gpufabric, peer.name, module) for peer in peers}
        gpufabric.judge("version", gpufabric.require(versions[node.id], f"modinfo {module} version"),
                        detail=consistency_detail(f"{module} version", versions))
    gpufabric.settle()


@pytest.mark.check("DRV-001")
def test_bnxt_en_version(node: NodeTarget, gpufabric: CheckContext, profile_peers: tuple[Node, ...]) -> None:
    _check_module(node, gpufabric, profile_peers, "bnxt_en")


@pytest.mark.check("DRV-002")
def test_bnxt_re_version(node: NodeTarget, gpufabric: CheckContext, profile_peers: tuple[Node, ...]) -> None:
    _check_module(node, gpufabric, profile_peers, "bnxt_re")


@pytest.mark.check("DRV-003")
def test_peer_memory_support(node: NodeTarget, gpufabric: CheckContext) -> None:
    with gpufabric.part():
        result = gpufabric.run(node.id, sh("grep", PEER_MEMORY_SYMBOL, "/proc/kallsyms"))
        if result.exit_code not in (0, 1):  # grep: 1 is "no line matched", 2 and above an error (unreadable file)
            gpufabric.require(None, f"{PEER_MEMORY_SYMBOL} in /proc/kallsyms (grep exit {result.exit_code})")
        # grep exits 1 with no output when the symbol is absent: peer memory not loaded (the catalog hint)
        symbols = gpufabric.parse(parse_kallsyms, result) if result.exit_code == 0 else KernelSymbols(())
        gpufabric.judge("peer_memory_provider", peer_memory_provider(symbols), detail=f"{PEER_MEMORY_SYMBOL} in /proc/kallsyms")
    if node.node.platform.gpu_vendor == "nvidia":
        with gpufabric.part():
            loaded = not missing_modules(loaded_modules(gpufabric, node.id), ["nvidia_peermem"])
            gpufabric.judge("nvidia_peermem_loaded", loaded, detail="loaded modules")
    gpufabric.settle()


@pytest.mark.check("DRV-004")
def test_nic_firmware_version(nic: NicTarget, gpufabric: CheckContext, profile_peers: tuple[Node, ...]) -> None:
    def firmware(node: Node, netdev: str) -> str | None:
        info = gpufabric.parse(parse_ethtool_driver, gpufabric.run(node.name, sh("ethtool", "-i", netdev), cached=True))
        return firmware_version(info.firmware_version)

    versions = {f"{peer.name}/{n.name}": firmware(peer, n.netdev) for peer in profile_peers for n in peer.nics}
    own = gpufabric.require(versions.get(nic.id) or firmware(nic.node, nic.nic.netdev), f"{nic.nic.netdev} firmware-version")
    gpufabric.expect("firmware_version", own, detail=consistency_detail("NIC firmware", versions))


@pytest.mark.check("DRV-005")
def test_release_libbnxt_re_in_use(node: NodeTarget, gpufabric: CheckContext) -> None:
    devinfo = gpufabric.parse(parse_ibv_devinfo, gpufabric.run(node.id, "ibv_devinfo 2>&1", cached=True))
    warnings = [w for w in devinfo.abi_warnings if w.driver == "bnxt_re"]
    detail = "; ".join(sorted({f"{w.device_path}: kernel ABI {w.kernel_abi}, library supports {w.supported_min}..{w.supported_max}" for w in warnings}))
    gpufabric.expect("kernel_abi_warnings", len(warnings), detail=detail, hint=ABI_HINT)


@pytest.mark.check("DRV-006")
def test_no_mlnx_ofed(node: NodeTarget, gpufabric: CheckContext) -> None:
    result = gpufabric.run(node.id, "test -e /usr/sbin/ofed_uninstall.sh")
    if result.exit_code not in (0, 1):
        gpufabric.require(None, f"test -e exit status {result.exit_code}")
    gpufabric.expect("ofed_uninstall_present", result.exit_code == 0, detail="/usr/sbin/ofed_uninstall.sh")


@pytest.mark.check("DRV-007")
def test_gpu_driver_loaded(node: NodeTarget, gpufabric: CheckContext) -> None:
    module = GPU_DRIVERS[node.node.platform.gpu_vendor]
    loaded = not missing_modules(loaded_modules(gpufabric, node.id), [module])
    gpufabric.expect("gpu_driver_loaded", loaded, detail=f"{module} among the loaded modules")


@pytest.mark.check("DRV-008")
def test_gpu_software_version(node: NodeTarget, gpufabric: CheckContext) -> None:
    if node.node.platform.gpu_vendor == "amd":
        packages = gpufabric.parse(parse_dpkg_list, gpufabric.run(node.id, "dpkg -l rocm-core"))
        package = packages.get("rocm-core")
        version = package.version if package is not None and package.installed else None
        gpufabric.expect("rocm_core", gpufabric.require(version, "installed rocm-core package"))
        return
    rows = gpufabric.parse(parse_nvidia_smi_query, gpufabric.run(node.id, "nvidia-smi --query-gpu=index,driver_version --format=csv", cached=True))
    versions = sorted({row.values.get("driver_version", "") for row in rows})
    gpufabric.expect("nvidia_driver", gpufabric.require(versions[0] if len(versions) == 1 else None, "one driver version on all GPUs"))


@pytest.mark.check("DRV-009")
def test_bnxt_re_conf(node: NodeTarget, gpufabric: CheckContext) -> None:
    conf = gpufabric.parse(parse_bnxt_re_conf, gpufabric.run(node.id, "cat /etc/bnxt_re/bnxt_re.conf", cached=True))
    gpufabric.expect_each([(key.lower(), conf.get_int(key), None, "/etc/bnxt_re/bnxt_re.conf") for key in CONF_KEYS])


@pytest.mark.check("DRV-010")
def test_infiniband_diagnostics(node: NodeTarget, gpufabric: CheckContext) -> None:
    names = [n.name for n in node.node.nics]
    problems: list[str] = []
    for command in ("ibstatus", "ibv_devinfo -vvv", "ibdev2netdev"):
        result = gpufabric.run(node.id, command)
        if result.exit_code != 0:
            problems.append(f"{command}: exit {result.exit_code}")
        elif missing := devices_not_listed(result.stdout, names):
            problems.append(f"{command}: no {', '.join(missing)}")
    gpufabric.expect("failing_commands", len(problems), detail="; ".join(problems))


@pytest.mark.check("DRV-011")
def test_rdma_device_names(node: NodeTarget, gpufabric: CheckContext) -> None:
    links = rdma_links(gpufabric, node.id)
    missing = [n.name for n in node.node.nics if links.get(n.name) is None]
    found = ", ".join(sorted({link.device for link in links.links}))
    gpufabric.expect("missing_devices", len(missing), detail=f"missing {', '.join(missing)}; rdma link shows {found}" if missing else "")


@pytest.mark.check("DRV-012")
def test_dkms_modules_for_running_kernel(node: NodeTarget, gpufabric: CheckContext) -> None:
    kernel = gpufabric.require(gpufabric.run(node.id, "uname -r", cached=True).stdout.strip() or None, "running kernel")
    required = gpufabric.profile.get("DRV-012", "installed_modules").value
    status = gpufabric.run(node.id, "dkms status")
    if tool_missing(status):
        loaded = loaded_for_running_kernel(loaded_modules(gpufabric, node.id), required, kernel)
        gpufabric.expect("installed_modules", loaded, detail=f"dkms not installed: loaded into kernel {kernel}")
        return
    installed, problems = dkms_installed(gpufabric.parse(parse_dkms_status, status), required, kernel)
    gpufabric.expect("installed_modules", installed, detail="; ".join(problems) or f"kernel {kernel}")
