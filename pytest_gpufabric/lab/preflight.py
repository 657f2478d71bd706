"""Can this machine host a lab? Root, network namespaces, and the system tools (installed when missing)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pytest_gpufabric.lab.errors import LabError, LabUnavailable
from pytest_gpufabric.lab.iproute import delete_namespace, run
from pytest_gpufabric.lab.topology import NAMESPACE_PREFIX, new_lab_id

REQUIRED_TOOLS: dict[str, str] = {
    "ip": "iproute2",
    "ping": "iputils-ping",
    "ssh": "openssh-client",
    "ssh-keygen": "openssh-client",
    "sshd": "openssh-server",
    "ps": "procps",
    "unshare": "util-linux",
    "mount": "mount",
    "sysctl": "procps",
}
INSTALL_TIMEOUT_S = 600.0


def default_installer() -> Path | None:
    """``tools/install-system-deps.sh`` of a source checkout, if this package runs from one."""
    candidate = Path(__file__).resolve().parents[2] / "tools" / "install-system-deps.sh"
    return candidate if candidate.is_file() else None


def missing_tools() -> list[str]:
    """Required commands not found on PATH (sbin directories included)."""
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    return [tool for tool in REQUIRED_TOOLS if shutil.which(tool, path=path) is None]


def ensure_tools(installer: Path | None = None) -> None:
    """Install missing tools with ``installer`` (default: the checkout's script); fail if any stays missing."""
    missing = missing_tools()
    if not missing:
        return
    script = installer or default_installer()
    if script is None:
        packages = sorted({REQUIRED_TOOLS[t] for t in missing})
        raise LabError(f"missing tools {missing}; install the packages {packages}")
    run(["bash", str(script)], timeout_s=INSTALL_TIMEOUT_S)
    still = missing_tools()
    if still:
        raise LabError(f"{script} ran but these tools are still missing: {still}")


def check_can_create_namespaces() -> None:
    """Raise ``LabUnavailable`` unless this process is root and ``ip netns add`` works."""
    if os.geteuid() != 0:
        raise LabUnavailable(
            f"the lab needs root (network namespaces, sshd); running as uid {os.geteuid()}"
        )
    if shutil.which("ip") is None:
        return  # ensure_tools installs iproute2; the probe runs again when the lab is built
    probe = f"{NAMESPACE_PREFIX}{new_lab_id()}-probe"
    try:
        run(["ip", "netns", "add", probe])
    except LabError as exc:
        raise LabUnavailable(f"cannot create network namespaces: {exc}") from exc
    delete_namespace(probe)
