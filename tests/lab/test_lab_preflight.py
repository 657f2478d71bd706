"""The lab's preflight and tools/install-system-deps.sh read one list of programs and packages; what is
missing is named in one line with its Debian package (no lab needed)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from types import MappingProxyType

import pytest

from pytest_gpufabric.lab import preflight
from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.preflight import TOOLS_FILE, missing_tools, parse_tools, required_tools

REPO = Path(__file__).resolve().parents[2]
INSTALLER = REPO / "tools" / "install-system-deps.sh"
ABSENT = "gpufabric-absent-program"


def test_the_list_names_the_lab_programs_with_their_packages() -> None:
    tools = required_tools()
    assert tools["ethtool"] == "ethtool" and tools["sshd"] == "openssh-server" and tools["ping"] == "iputils-ping"
    assert missing_tools(["sh", ABSENT]) == [ABSENT]


def test_a_malformed_list_line_is_refused() -> None:
    with pytest.raises(LabError, match="line 2: expected a new 'PROGRAM PACKAGE'"):
        parse_tools("ip iproute2\nethtool\n")


def test_a_program_still_missing_after_the_installer_is_one_line_naming_its_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tools = MappingProxyType({**required_tools(), ABSENT: "gpufabric-absent-package"})
    monkeypatch.setattr(preflight, "required_tools", lambda: tools)
    installer = tmp_path / "installer.sh"
    installer.write_text("exit 0\n")
    with pytest.raises(LabError) as raised:
        preflight.ensure_tools(installer)
    message = str(raised.value)
    assert "\n" not in message
    assert f"{ABSENT} (Debian package gpufabric-absent-package)" in message
    assert "apt-get install --no-install-recommends gpufabric-absent-package" in message


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) runs the script unprivileged")
def test_the_installer_reads_the_same_list_and_names_missing_packages() -> None:
    # A directory of its own outside pytest's (private) tmp_path, readable by the unprivileged user.
    with tempfile.TemporaryDirectory(prefix="gpufabric-installer-") as name:
        tree = Path(name)
        tree.chmod(0o755)
        script = tree / "tools" / INSTALLER.name
        listing = tree / "pytest_gpufabric" / "lab" / TOOLS_FILE
        for directory in (script.parent, listing.parent.parent, listing.parent):
            directory.mkdir(mode=0o755)
        shutil.copy(INSTALLER, script)
        shutil.copy(INSTALLER.with_name("apt-packages.sh"), script.parent)
        listing.write_text(f"sh dash\n{ABSENT} gpufabric-absent-package  # a program nobody has\n")
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", str(script)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stderr.count("\n") == 1 and "missing system packages: gpufabric-absent-package." in done.stderr
        listing.write_text("sh dash\n")
        present = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60, check=False)
        assert present.returncode == 0 and "all 1 programs of the lab present" in present.stdout
