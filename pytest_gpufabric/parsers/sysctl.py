"""Single-value kernel settings: ``cat /proc/sys/...`` files and ``sysctl name...`` lines."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail, parse_int

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
def parse_proc_sys_int(text: str) -> int:
    lines = clean_lines(VALUE_TOOL, text)
    if len(lines) != 1:
        fail(VALUE_TOOL, f"expected one line holding an integer, found {len(lines)} lines")
    return parse_int(VALUE_TOOL, lines[0], "value")


@parser(SYSCTL_TOOL, "sysctl <name>...: 'name = value' lines")
def parse_sysctl(text: str) -> SysctlSettings:
    values: dict[str, str] = {}
    for line in clean_lines(SYSCTL_TOOL, text):
        if not line.strip():
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip() or " " in name.strip():
            fail(SYSCTL_TOOL, f"expected 'name = value', found {line.strip()!r}")
        values[name.strip()] = value.strip()
    return SysctlSettings(values)
