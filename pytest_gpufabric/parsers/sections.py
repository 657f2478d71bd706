"""The framed output of the plugin's own node scripts: several programs' outputs in one command's output.

A node script that runs many probes at once (``checks.mesh_commands``) prints each probe's output after a header
line naming it, its exit status and its number of lines:

    @@gpufabric fping 172.30.0.1 exit=0 lines=2
    172.30.0.2 : xmt/rcv/%loss = 5/5/0%, min/avg/max = 0.04/0.05/0.07
    172.30.1.2 : xmt/rcv/%loss = 5/5/0%, min/avg/max = 0.03/0.03/0.04

A section is taken only whole: a header whose lines are not all there (a cut output) gives no section, and a line
outside every section is kept, with its number, as not understood. So a program's output can never be read as
another's, whatever it prints. It is the plugin's own framing, not a tool's output, so it is not in the
registry of tool parsers (whose outputs come from the field); each section is read by its tool's parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_gpufabric.parsers.textutil import fail

TOOL = "gpufabric-sections"
MARK = "@@gpufabric"
HEADER = re.compile(rf"^{MARK} (?P<label>\S+(?: \S+)*) exit=(?P<exit>\d+) lines=(?P<lines>\d+)$")


@dataclass(frozen=True)
class Section:
    """One program's output: its label words (e.g. ``("fping", "172.30.0.1")``), exit status and lines."""

    label: tuple[str, ...]
    exit_code: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + ("\n" if self.lines else "")


@dataclass(frozen=True)
class Sections:
    """Every whole section in order, and the lines outside them (number, text)."""

    sections: tuple[Section, ...]
    unread: tuple[tuple[int, str], ...]


def parse_sections(text: str) -> Sections:
    """Split a node script's output into its sections (see the module docstring)."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    sections: list[Section] = []
    unread: list[tuple[int, str]] = []
    index = 0
    while index < len(lines):
        header = HEADER.match(lines[index])
        count = int(header["lines"]) if header else 0
        if header is None or index + 1 + count > len(lines):
            if lines[index].strip():
                unread.append((index + 1, lines[index]))
            index += 1
            continue
        body = tuple(lines[index + 1:index + 1 + count])
        sections.append(Section(tuple(header["label"].split(" ")), int(header["exit"]), body))
        index += 1 + count
    if not sections and not unread:
        fail(TOOL, "empty output")
    return Sections(tuple(sections), tuple(unread))


def frame(label: str, exit_code: int, lines: list[str]) -> str:
    """One section as a node script prints it (for writing what a node printed: the demo, the tests)."""
    return f"{MARK} {label} exit={exit_code} lines={len(lines)}\n" + "".join(f"{line}\n" for line in lines)
