"""Kernel modules: ``modinfo <module>``, ``lsmod`` and ``dkms status``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

MODINFO_TOOL = "modinfo"
LSMOD_TOOL = "lsmod"
DKMS_TOOL = "dkms-status"


@dataclass(frozen=True)
class ModuleInfo:
    """``modinfo`` fields; a key printed several times (alias, parm) keeps every value in order."""

    fields: dict[str, tuple[str, ...]]

    def first(self, key: str) -> Optional[str]:
        values = self.fields.get(key)
        return values[0] if values else None

    @property
    def version(self) -> Optional[str]:
        return self.first("version")

    @property
    def vermagic_kernel(self) -> Optional[str]:
        """The kernel release the module was built for (first word of vermagic)."""
        vermagic = self.first("vermagic")
        return vermagic.split()[0] if vermagic else None

    @property
    def depends(self) -> tuple[str, ...]:
        raw = self.first("depends") or ""
        return tuple(name.strip() for name in raw.split(",") if name.strip())


@parser(MODINFO_TOOL, "modinfo <module>: version, vermagic, depends and the other fields")
def parse_modinfo(text: str) -> ModuleInfo:
    fields: dict[str, list[str]] = {}
    for line in clean_lines(MODINFO_TOOL, text):
        if not line.strip():
            continue
        if line.startswith("modinfo: ERROR:"):
            fail(MODINFO_TOOL, line.partition("ERROR:")[2].strip())
        key, sep, value = line.partition(":")
        if not sep or not re.fullmatch(r"[A-Za-z_][\w.]*", key.strip()):
            fail(MODINFO_TOOL, f"expected '<field>: <value>', found {line.strip()!r}")
        fields.setdefault(key.strip(), []).append(value.strip())
    return ModuleInfo({key: tuple(values) for key, values in fields.items()})


@dataclass(frozen=True)
class LoadedModule:
    name: str
    size: int
    used_count: int
    used_by: tuple[str, ...]


@dataclass(frozen=True)
class LoadedModules:
    modules: tuple[LoadedModule, ...]

    def get(self, name: str) -> Optional[LoadedModule]:
        wanted = name.replace("-", "_")
        return next((module for module in self.modules if module.name == wanted), None)


@parser(LSMOD_TOOL, "lsmod: loaded modules with size, use count and users")
def parse_lsmod(text: str) -> LoadedModules:
    modules = []
    for line in clean_lines(LSMOD_TOOL, text):
        words = line.split()
        if not words or words[:3] == ["Module", "Size", "Used"]:
            continue
        if len(words) < 3 or not words[1].isdigit() or not words[2].lstrip("-").isdigit():
            fail(LSMOD_TOOL, f"expected '<module> <size> <use count> [users]', found {line.strip()!r}")
        users = tuple(user.strip() for user in " ".join(words[3:]).split(",") if user.strip())
        modules.append(LoadedModule(words[0], int(words[1]), int(words[2]), users))
    if not modules:
        fail(LSMOD_TOOL, "no module line")
    return LoadedModules(tuple(modules))


DKMS_LINE = re.compile(
    r"^(?P<module>[^/,\s]+)(?:/|,\s*)(?P<version>[^,\s]+),\s*(?P<kernel>[^,\s]+),\s*(?P<arch>[^:\s]+):\s*"
    r"(?P<status>[\w-]+)(?:\s*\((?P<note>.*))?$"
)


@dataclass(frozen=True)
class DkmsEntry:
    module: str
    version: str
    kernel: str
    arch: str
    status: str  # "installed", "built", "added"
    note: Optional[str]  # the parenthesised remark, e.g. "Original modules exist"


@parser(DKMS_TOOL, "dkms status: module, version, kernel, arch and status of each build")
def parse_dkms_status(text: str) -> tuple[DkmsEntry, ...]:
    entries: list[DkmsEntry] = []
    open_note = False
    for line in clean_lines(DKMS_TOOL, text):
        stripped = line.strip()
        if not stripped:
            continue
        match = DKMS_LINE.match(stripped)
        if match:
            note = match.group("note")
            entries.append(DkmsEntry(match.group("module"), match.group("version"), match.group("kernel"),
                                     match.group("arch"), match.group("status"), note))
            open_note = note is not None and not note.endswith(")")
        elif open_note and entries:  # a remark wrapped onto the next line
            last = entries[-1]
            note = f"{last.note.removesuffix('-') if last.note.endswith('-') else last.note + ' '}{stripped}"
            entries[-1] = DkmsEntry(last.module, last.version, last.kernel, last.arch, last.status, note)
            open_note = not stripped.endswith(")")
        else:
            fail(DKMS_TOOL, f"expected '<module>/<version>, <kernel>, <arch>: <status>', found {stripped!r}")
    if not entries:
        fail(DKMS_TOOL, "no module entry")
    return tuple(
        entry if entry.note is None else DkmsEntry(entry.module, entry.version, entry.kernel, entry.arch,
                                                   entry.status, entry.note.rstrip(")").strip())
        for entry in entries
    )


PROC_MODULES_TOOL = "proc-modules"
SYSFS_MODULE_VERSION_TOOL = "sysfs-module-version"
PROC_MODULES_LINE = re.compile(r"^(?P<name>\S+) (?P<size>\d+) (?P<count>-?\d+|-) (?P<deps>\S+) (?P<state>Live|Loading|Unloading)"
                               r"(?: 0x[0-9a-fA-F]+)?(?: \([A-Z+\-]+\))?$")


@parser(PROC_MODULES_TOOL, "cat /proc/modules: loaded modules with size, use count and users (lsmod's own source)")
def parse_proc_modules(text: str) -> LoadedModules:
    """``/proc/modules``: ``name size refcount users,|- state address [(taints)]``, the table lsmod formats.

    A kernel built without module unloading prints ``-`` for the reference count: kept as -1 (no count).
    """
    modules = []
    for line in clean_lines(PROC_MODULES_TOOL, text):
        if not line.strip():
            continue
        match = PROC_MODULES_LINE.match(line.strip())
        if not match:
            fail(PROC_MODULES_TOOL, f"expected '<module> <size> <refcount> <users|-> <state> [<address>]', found {line.strip()!r}")
        users = tuple(user for user in match.group("deps").split(",") if user and user != "-")
        count = -1 if match.group("count") == "-" else int(match.group("count"))
        modules.append(LoadedModule(match.group("name"), int(match.group("size")), count, users))
    if not modules:
        fail(PROC_MODULES_TOOL, "no module line")
    return LoadedModules(tuple(modules))


@parser(SYSFS_MODULE_VERSION_TOOL, "cat /sys/module/<module>/version: the loaded module's version")
def parse_sysfs_module_version(text: str) -> str:
    """The one line of ``/sys/module/<module>/version`` (what ``modinfo`` prints as ``version:``)."""
    lines = [line.strip() for line in clean_lines(SYSFS_MODULE_VERSION_TOOL, text) if line.strip()]
    if len(lines) != 1 or not re.fullmatch(r"[\w.+~:-]+", lines[0]):
        fail(SYSFS_MODULE_VERSION_TOOL, f"expected one version string, found {' / '.join(lines)[:80]!r}")
    return lines[0]
