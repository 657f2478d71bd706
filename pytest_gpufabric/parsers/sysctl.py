"""Single-value kernel settings: ``cat /proc/sys/...`` files and ``sysctl name...`` lines, read by the parsing rule
(a line of another form, such as sysctl's error for an unknown name, costs only its own setting)."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.parsers.reading import Parsed, Reading, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import fail, parse_int

VALUE_TOOL = "proc-sys-value"
SYSCTL_TOOL = "sysctl"


@dataclass(frozen=True)
class SysctlSettings:
    """``sysctl a b`` output: setting name (dotted) -> value as printed."""

    values: dict[str, str]

    def get_int(self, name: str) -> int:
        """The integer value of ``name``; ParseError when absent or not an integer."""
        if name not in self.values:
            fail(SYSCTL_TOOL, f"{name} missing from the output")
        return parse_int(SYSCTL_TOOL, self.values[name], name)


@parser(VALUE_TOOL, "cat /proc/sys/<path> holding one integer (e.g. kernel/numa_balancing)")
def parse_proc_sys_int(text: str) -> Parsed[int]:
    reading = Reading(VALUE_TOOL, text)
    value: int | None = None
    for line in reading.content():
        if value is not None:
            reading.unread(line, "a second line: the file holds one integer")
            continue
        with reading.row(line):
            value = integer(line.stripped, "value")
    return reading.done(value, nothing="expected one line holding an integer")  # type: ignore[arg-type]


@parser(SYSCTL_TOOL, "sysctl <name>...: 'name = value' lines")
def parse_sysctl(text: str) -> Parsed[SysctlSettings]:
    reading = Reading(SYSCTL_TOOL, text)
    values: dict[str, str] = {}
    for line in reading.content():
        name, sep, value = line.stripped.partition("=")
        if not sep or not name.strip() or " " in name.strip() or name.strip() in values:
            reading.unread(line, "expected 'name = value', each name once")
            continue
        values[name.strip()] = value.strip()
        reading.used(line)
    return reading.done(SysctlSettings(values), nothing="expected 'name = value'")
