"""Can this machine host a lab? Root, network namespaces, and every program the lab and its checks start.

The programs and their Debian packages are listed once, in ``system-tools.txt`` next to this module;
``tools/install-system-deps.sh`` installs the packages from the same list.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType

from pytest_gpufabric.lab.errors import LabError, LabUnavailable
from pytest_gpufabric.lab.iproute import delete_namespace, run
from pytest_gpufabric.lab.topology import NAMESPACE_PREFIX, new_lab_id

TOOLS_FILE = "system-tools.txt"
INSTALL_TIMEOUT_S = 600.0
PROBE_TIMEOUT_S = 20.0
SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")


def parse_tools(text: str) -> Mapping[str, str]:
    """Program -> Debian package, from lines ``PROGRAM PACKAGE`` (``#`` starts a comment)."""
    tools: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) != 2 or line[0] in tools:
            raise LabError(f"{TOOLS_FILE} line {number}: expected a new 'PROGRAM PACKAGE', got {raw.strip()!r}")
        tools[line[0]] = line[1]
    return MappingProxyType(tools)


@cache
def required_tools() -> Mapping[str, str]:
    """Every program the lab and its checks start -> the Debian package that provides it."""
    return parse_tools(resources.files(__package__).joinpath(TOOLS_FILE).read_text(encoding="utf-8"))


def default_installer() -> Path | None:
    """``tools/install-system-deps.sh`` of a source checkout, if this package runs from one."""
    candidate = Path(__file__).resolve().parents[2] / "tools" / "install-system-deps.sh"
    return candidate if candidate.is_file() else None


def missing_tools(tools: Sequence[str] | None = None) -> list[str]:
    """The programs (default: all required) that ``command -v`` does not find (sbin directories included)."""
    names = list(required_tools() if tools is None else tools)
    path = os.pathsep.join([os.environ.get("PATH", ""), *SBIN_DIRS])
    probe = 'for tool; do command -v "$tool" >/dev/null 2>&1 || printf "%s\\n" "$tool"; done'
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", probe, "sh", *names], env={**os.environ, "PATH": path},
            capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        raise LabError(f"cannot look for the lab's programs with /bin/sh: {exc}") from None
    return done.stdout.split()


def describe_missing(missing: Sequence[str]) -> str:
    """One line naming each missing program with its package, and how to install them."""
    tools = required_tools()
    named = ", ".join(f"{tool} (Debian package {tools[tool]})" for tool in missing)
    packages = " ".join(sorted({tools[tool] for tool in missing}))
    return (
        f"missing programs: {named}; run tools/install-system-deps.sh as root, "
        f"or: apt-get install --no-install-recommends {packages}"
    )


def ensure_tools(installer: Path | None = None) -> None:
    """Install missing programs with ``installer`` (default: the checkout's script); fail, in one line
    naming each package, if any stays missing."""
    if not missing_tools():
        return
    script = installer or default_installer()
    if script is not None:
        run(["bash", str(script)], timeout_s=INSTALL_TIMEOUT_S)
    still = missing_tools()
    if still:
        raise LabError(describe_missing(still))


def check_can_create_namespaces() -> None:
    """Raise ``LabUnavailable`` unless this process is root and ``ip netns add`` works."""
    if os.geteuid() != 0:
        raise LabUnavailable(
            f"the lab needs root (network namespaces, sshd); running as uid {os.geteuid()}"
        )
    if missing_tools(["ip"]):
        return  # ensure_tools installs iproute2; the probe runs again when the lab is built
    probe = f"{NAMESPACE_PREFIX}{new_lab_id()}-probe"
    try:
        run(["ip", "netns", "add", probe])
    except LabError as exc:
        raise LabUnavailable(f"cannot create network namespaces: {exc}") from exc
    delete_namespace(probe)
