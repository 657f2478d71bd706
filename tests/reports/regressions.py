"""Inject a regression into a copy of a recording: one perftest output with every bandwidth scaled."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

from pytest_gpufabric.parsers.sections import HEADER
from pytest_gpufabric.recording.nodefile import parse_node_file, render_node_file
from pytest_gpufabric.recording.integrity import seal

BW_ROW = re.compile(r"^(\s*\d+\s+\d+\s+)(\d+\.\d+)(\s+)(\d+\.\d+)(\s+\d+\.\d+\s*)$")


def _scaled_row(line: str, factor: float) -> str:
    """A row of a perftest bandwidth table with its peak and average scaled (as many decimals as printed)."""
    def scale(match: re.Match[str]) -> str:
        peak, average = (f"{float(match.group(i)) * factor:.{len(match.group(i).split('.')[1])}f}" for i in (2, 4))
        return f"{match.group(1)}{peak}{match.group(3)}{average}{match.group(5)}"
    return BW_ROW.sub(scale, line)


def _scaled_section(stdout: str, label: str, factor: float) -> str:
    """The framed output of a node script (``parsers.sections``) with the rows of the section ``label`` scaled."""
    lines = stdout.split("\n")
    starts = [i for i, line in enumerate(lines) if (header := HEADER.match(line)) and header["label"] == label]
    assert len(starts) == 1, f"no single section {label!r} in the output"
    count = int(HEADER.match(lines[starts[0]])["lines"])  # type: ignore[index]
    body = range(starts[0] + 1, starts[0] + 1 + count)
    return "\n".join(_scaled_row(line, factor) if i in body else line for i, line in enumerate(lines))


def inject_regression(recording: Path, into: Path, node: str, command_part: str, section: str, factor: float) -> str:
    """Copy ``recording`` to ``into`` and scale the bandwidth of one program's output: the section ``section``
    (e.g. ``client node02/bnxt_re3->node05/bnxt_re3``) of the one recorded command on ``node`` that contains
    ``command_part``; returns that command."""
    shutil.copytree(recording, into)
    path = into / "nodes" / f"{node}.yaml"
    commands = parse_node_file(path.read_text(encoding="utf-8"), node)
    (command,) = [c for c in commands if command_part in c]
    commands[command] = tuple(dataclasses.replace(e, stdout=_scaled_section(e.stdout, section, factor))
                              for e in commands[command])
    path.write_text(seal(render_node_file(node, commands)), encoding="utf-8")  # sealed again: a recording of its own
    return command
