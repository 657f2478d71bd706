"""Installed package versions: ``dpkg -l [| grep ...]`` (DRV-008: rocm-core, CUDA, NCCL versions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "dpkg-list"


@dataclass(frozen=True)
class InstalledPackage:
    state: str  # desired + status letters: "ii" installed, "hi" held and installed, "rc" removed (config kept)
    name: str
    version: str
    architecture: str
    description: str

    @property
    def installed(self) -> bool:
        return len(self.state) >= 2 and self.state[1] == "i"


@dataclass(frozen=True)
class PackageList:
    packages: tuple[InstalledPackage, ...]

    def get(self, name: str) -> Optional[InstalledPackage]:
        return next((package for package in self.packages if package.name.split(":")[0] == name), None)


@parser(TOOL, "dpkg -l: state, name, version and architecture of each package")
def parse_dpkg_list(text: str) -> PackageList:
    packages = []
    for line in clean_lines(TOOL, text):
        if not line.strip() or line.startswith(("Desired=", "|", "+++")):
            continue
        words = line.split(None, 4)
        if len(words) < 4 or len(words[0]) not in (2, 3) or not words[0].isalpha():
            fail(TOOL, f"expected '<state> <name> <version> <arch> <description>', found {line.strip()[:80]!r}")
        packages.append(InstalledPackage(words[0], words[1], words[2], words[3], words[4] if len(words) > 4 else ""))
    if not packages:
        fail(TOOL, "no package line")
    return PackageList(tuple(packages))
