"""Kernel modules: ``modinfo <module>``, ``lsmod``, ``/proc/modules``, ``/sys/module/<m>/version`` and
``dkms status``, each read by the parsing rule (a line of another form costs only its own facts and is kept
unread; the module lists say when such a line could name a module, so that its absence is never guessed)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import first_word
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

MODINFO_TOOL = "modinfo"
FIELD_NAME = re.compile(r"^[a-z_][a-z0-9_.]*$")  # modinfo's tags are lower-case (MODULE_INFO(tag, ...))
HEX_BYTES = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2})*:?$")  # a signature or key continued

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
def parse_modinfo(text: str) -> Parsed[ModuleInfo]:
    """``<field>: <value>`` lines; an indented line continues the value above it (kmod 26 and later print a
    signature and its key over several lines of hex; a parameter's help may hold line breaks, which modinfo prints
    as they are, indented by the module's own tabs). A line of another form costs only its own field (kept
    unread); ``modinfo: ERROR: ...`` alone (an unknown module) is refused with its words."""
    reading = Reading(MODINFO_TOOL, text)
    refuse_unfinished_line(reading, text)
    fields: dict[str, list[str]] = {}
    last: Optional[tuple[str, Line]] = None  # the field a continuation line extends, and its line
    errors: list[str] = []
    for line in reading.content():
        key, sep, value = line.stripped.partition(":")
        if line.stripped.startswith("modinfo: ERROR:"):
            errors.append(line.stripped.partition("ERROR:")[2].strip())
            reading.unread(line, "modinfo's error")
            last = None
        elif line.indent and last is not None:  # a value continued: a signature's hex, a parameter's help
            values = fields[last[0]]
            joint = "" if values[-1].endswith(":") and HEX_BYTES.match(line.stripped) or not values[-1] else " "
            values[-1] += joint + line.stripped
            reading.used(line)
        elif sep and FIELD_NAME.match(key.strip()) and not line.indent:
            fields.setdefault(key.strip(), []).append(value.strip())
            last = (key.strip(), line)
            reading.used(line)
        else:
            reading.unread(line, "expected '<field>: <value>'", key.strip() if sep else "")
            last = None
    info = ModuleInfo({key: tuple(values) for key, values in fields.items()})
    return reading.done(info, nothing="; ".join(errors) or "no '<field>: <value>' line")


@dataclass(frozen=True)
class LoadedModule:
    name: str
    size: int
    used_count: int
    used_by: tuple[str, ...]


@dataclass(frozen=True)
class LoadedModules:
    modules: tuple[LoadedModule, ...]
    unread: tuple[str, ...] = ()  # the lines not understood, as printed

    def get(self, name: str) -> Optional[LoadedModule]:
        wanted = name.replace("-", "_")
        return next((module for module in self.modules if module.name == wanted), None)

    def may_hold(self, name: str) -> bool:
        """True when a line not understood names ``name``: its absence from ``modules`` is then not known."""
        wanted = name.replace("-", "_")
        return any(wanted in text.replace("-", "_") for text in self.unread)


LSMOD_ROW = re.compile(r"^(?P<name>[\w-]+)\s+(?P<size>\d+)\s+(?P<count>-?\d+|-)(?:\s+(?P<users>\S.*))?$")
LSMOD_HEADER = re.compile(r"^Module\s+Size\s+Used by(\s+Tainted: .*|\s+Not tainted)?$")


def _modules(reading: Reading, parsed: list[LoadedModule]) -> LoadedModules:
    return LoadedModules(tuple(parsed), tuple(u.text.strip() for u in reading.unread_lines()))


@parser(LSMOD_TOOL, "lsmod: loaded modules with size, use count and users")
def parse_lsmod(text: str) -> Parsed[LoadedModules]:
    """The ``Module Size Used by`` header and ``<module> <size> <use count> [users,...]`` rows. A row of another
    form (a count an OCR turned into a letter, a name fused with its size) costs only its own module and is kept
    unread: ``LoadedModules.may_hold`` then says that the module's absence is not known."""
    reading = Reading(LSMOD_TOOL, text)
    refuse_unfinished_line(reading, text)
    modules = []
    for line in reading.content():
        if LSMOD_HEADER.match(line.stripped):
            reading.known(line)
            continue
        with reading.row(line, scope=first_word(line)):
            match = LSMOD_ROW.match(line.stripped)
            if not match:
                raise Unfit("expected '<module> <size> <use count> [users]'")
            users = tuple(user.strip() for user in (match.group("users") or "").split(",") if user.strip())
            count = -1 if match.group("count") == "-" else int(match.group("count"))
            modules.append(LoadedModule(match.group("name"), int(match.group("size")), count, users))
    return reading.done(_modules(reading, modules), nothing="no module line")


DKMS_LINE = re.compile(
    r"^(?P<module>[^/,\s]+)(?:/|,\s*)(?P<version>[^,\s]+),\s*(?P<kernel>[^,\s]+),\s*(?P<arch>[^:\s]+):\s*"
    r"(?P<status>[\w-]+)(?:\s*\((?P<note>.*))?$"
)
DKMS_ADDED = re.compile(r"^(?P<module>[^/,\s]+)(?:/|,\s*)(?P<version>[^,:\s]+):\s*(?P<status>added)$")


@dataclass(frozen=True)
class DkmsEntry:
    module: str
    version: str
    kernel: Optional[str]  # None for a module only added (no build yet): "nvidia/570.133.20: added"
    arch: Optional[str]
    status: str  # "installed", "built", "added"
    note: Optional[str]  # the parenthesised remark, e.g. "Original modules exist"


@dataclass(frozen=True)
class DkmsStatus:
    entries: tuple[DkmsEntry, ...]
    unread: tuple[str, ...] = ()  # the lines not understood, as printed

    def may_hold(self, module: str) -> bool:
        """True when a line not understood names ``module``: what dkms says of it is then not known."""
        return any(module in text for text in self.unread)


@parser(DKMS_TOOL, "dkms status: module, version, kernel, arch and status of each build")
def parse_dkms_status(text: str) -> Parsed[DkmsStatus]:
    """``<module>/<version>, <kernel>, <arch>: <status> [(<remark>)]`` (dkms 3; dkms 2 separates the version with
    ``, ``), ``<module>/<version>: added`` for a module not built yet, a remark wrapped onto the next line. A line
    of another form (a warning, ``Error! ...``) costs only its own entry and is kept unread."""
    reading = Reading(DKMS_TOOL, text)
    refuse_unfinished_line(reading, text)
    entries: list[DkmsEntry] = []
    open_note = False
    for line in reading.content():
        stripped = line.stripped
        match, added = DKMS_LINE.match(stripped), DKMS_ADDED.match(stripped)
        if match:
            note = match.group("note")
            entries.append(DkmsEntry(match.group("module"), match.group("version"), match.group("kernel"),
                                     match.group("arch"), match.group("status"), note))
            open_note = note is not None and not note.endswith(")")
            reading.used(line)
        elif added:
            entries.append(DkmsEntry(added.group("module"), added.group("version"), None, None, added.group("status"), None))
            open_note = False
            reading.used(line)
        elif open_note and entries:  # a remark wrapped onto the next line
            last = entries[-1]
            assert last.note is not None
            note = f"{last.note.removesuffix('-') if last.note.endswith('-') else last.note + ' '}{stripped}"
            entries[-1] = DkmsEntry(last.module, last.version, last.kernel, last.arch, last.status, note)
            open_note = not stripped.endswith(")")
            reading.used(line)
        else:
            reading.unread(line, "expected '<module>/<version>, <kernel>, <arch>: <status>'", stripped.split("/")[0].split(",")[0])
    closed = tuple(
        entry if entry.note is None else DkmsEntry(entry.module, entry.version, entry.kernel, entry.arch,
                                                   entry.status, entry.note.rstrip(")").strip())
        for entry in entries
    )
    return reading.done(DkmsStatus(closed, tuple(u.text.strip() for u in reading.unread_lines())), nothing="no module entry")


PROC_MODULES_TOOL = "proc-modules"
SYSFS_MODULE_VERSION_TOOL = "sysfs-module-version"
VERSION = re.compile(r"^[\w.+~:-]+$")
PROC_MODULES_LINE = re.compile(r"^(?P<name>\S+) (?P<size>\d+) (?P<count>-?\d+|-) (?P<deps>\S+) (?P<state>Live|Loading|Unloading)"
                               r"(?: 0x[0-9a-fA-F]+)?(?: \([A-Z+\-]+\))?$")


@parser(PROC_MODULES_TOOL, "cat /proc/modules: loaded modules with size, use count and users (lsmod's own source)")
def parse_proc_modules(text: str) -> Parsed[LoadedModules]:
    """``/proc/modules``: ``name size refcount users,|- state address [(taints)]``, the table lsmod formats.

    A kernel built without module unloading prints ``-`` for the reference count: kept as -1 (no count). A line
    of another form costs only its own module (kept unread, see ``LoadedModules.may_hold``).
    """
    reading = Reading(PROC_MODULES_TOOL, text)
    refuse_unfinished_line(reading, text)
    modules = []
    for line in reading.content():
        with reading.row(line, scope=first_word(line)):
            match = PROC_MODULES_LINE.match(line.words)
            if not match:
                raise Unfit("expected '<module> <size> <refcount> <users|-> <state> [<address>]'")
            users = tuple(user for user in match.group("deps").split(",") if user and user != "-")
            count = -1 if match.group("count") == "-" else int(match.group("count"))
            modules.append(LoadedModule(match.group("name"), int(match.group("size")), count, users))
    return reading.done(_modules(reading, modules), nothing="no module line")


@parser(SYSFS_MODULE_VERSION_TOOL, "cat /sys/module/<module>/version: the loaded module's version")
def parse_sysfs_module_version(text: str) -> Parsed[str]:
    """The one line of ``/sys/module/<module>/version`` (what ``modinfo`` prints as ``version:``); a second line or
    one of another form is kept unread."""
    reading = Reading(SYSFS_MODULE_VERSION_TOOL, text)
    refuse_unfinished_line(reading, text)
    version: Optional[str] = None
    for line in reading.content():
        if version is not None:
            reading.unread(line, "a second line: the file holds one version")
        elif not VERSION.match(line.stripped):
            reading.unread(line, "expected one version string")
        else:
            version = line.stripped
            reading.used(line)
    return reading.done(version or "", nothing="expected one version string")
