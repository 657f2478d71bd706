"""Installed package versions: ``dpkg -l [| grep ...]`` (DRV-008: rocm-core, CUDA, NCCL versions).

``dpkg -l`` prints a legend (``Desired=...``, ``| Status=...``, ``|/ Err?=...``), a header (``||/ Name Version
Architecture Description``; dpkg before 1.16.2 has no Architecture column), a ``+++-====`` rule and one row per
package: ``<state> <name> <version> [<architecture>] <description>``. Read by the parsing rule: a row is read
only when its state is dpkg's (``ii``, ``rc``, ``hi``, ``iU``...) and, where no header says whether the
architecture column is there (a grep of the rows), its fourth word is an architecture dpkg knows; any other line
costs only its own package and is kept unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "dpkg-list"
LEGEND = re.compile(r"^(Desired=|\| Status=|\|/ Err\?=|\+\+\+-[=-]+$)")
HEADER = re.compile(r"^\|\|/\s+Name\s+Version\s+(Architecture\s+)?Description\s*$")
# desired action (u i h r p), package status (n c H U F W t i), error flag (R): dpkg-query(1) "--list"
STATE = re.compile(r"^[uihrp][ncHUFWti][R]?$")
# dpkg-architecture -L: the architectures a row of a grepped listing may carry in its fourth word
ARCHITECTURE = re.compile(r"^(all|any|amd64|arm64|armel|armhf|i386|mips64el|mipsel|ppc64el|ppc64|riscv64|s390x|"
                          r"x32|alpha|hppa|ia64|loong64|m68k|powerpc|sh4|sparc64)$")


@dataclass(frozen=True)
class InstalledPackage:
    state: str  # desired + status letters: "ii" installed, "hi" held and installed, "rc" removed (config kept)
    name: str
    version: str
    architecture: Optional[str]  # None in the listing of dpkg before 1.16.2 (no such column)
    description: str

    @property
    def installed(self) -> bool:
        return len(self.state) >= 2 and self.state[1] == "i"


@dataclass(frozen=True)
class PackageList:
    packages: tuple[InstalledPackage, ...]

    def get(self, name: str) -> Optional[InstalledPackage]:
        return next((package for package in self.packages if package.name.split(":")[0] == name), None)


def _row(line: Line, with_architecture: Optional[bool]) -> InstalledPackage:
    words = line.stripped.split(None, 4 if with_architecture is not False else 3)
    if len(words) < 3 or not STATE.match(words[0]):
        raise Unfit("expected '<state> <name> <version> [<architecture>] <description>' with a dpkg state such as ii")
    if with_architecture is False:
        return InstalledPackage(words[0], words[1], words[2], None, words[3] if len(words) > 3 else "")
    if len(words) < 4 or (with_architecture is None and not ARCHITECTURE.match(words[3])):
        raise Unfit("no header says whether the fourth word is the architecture, and it is not one dpkg knows")
    return InstalledPackage(words[0], words[1], words[2], words[3], words[4] if len(words) > 4 else "")


@parser(TOOL, "dpkg -l: state, name, version and architecture of each package")
def parse_dpkg_list(text: str) -> Parsed[PackageList]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    packages = []
    with_architecture: Optional[bool] = None  # unknown until a header says
    for line in reading.content():
        header = HEADER.match(line.stripped)
        if header:
            with_architecture = header.group(1) is not None
            reading.known(line)
        elif LEGEND.match(line.stripped):
            reading.known(line)
        else:
            with reading.row(line, scope=line.stripped.split()[1] if len(line.stripped.split()) > 1 else ""):
                packages.append(_row(line, with_architecture))
    return reading.done(PackageList(tuple(packages)), nothing="no '<state> <name> <version> ...' package row")
