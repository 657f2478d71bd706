"""Inject a regression into a copy of a recording: one recorded perftest output with every bandwidth scaled."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

from pytest_gpufabric.recording.nodefile import parse_node_file, render_node_file

BW_ROW = re.compile(r"^(\s*\d+\s+\d+\s+)(\d+\.\d+)(\s+)(\d+\.\d+)(\s+\d+\.\d+\s*)$")


def _scaled(stdout: str, factor: float) -> str:
    """Every row of a perftest bandwidth table with its peak and average scaled (as many decimals as printed)."""
    def scale(match: re.Match[str]) -> str:
        peak, average = (f"{float(match.group(i)) * factor:.{len(match.group(i).split('.')[1])}f}" for i in (2, 4))
        return f"{match.group(1)}{peak}{match.group(3)}{average}{match.group(5)}"
    return "\n".join(BW_ROW.sub(scale, line) for line in stdout.split("\n"))


def inject_regression(recording: Path, into: Path, node: str, command_part: str, factor: float) -> str:
    """Copy ``recording`` to ``into`` and scale the bandwidth of the one recorded command on ``node`` that
    contains ``command_part``; returns that command."""
    shutil.copytree(recording, into)
    path = into / "nodes" / f"{node}.yaml"
    commands = parse_node_file(path.read_text(encoding="utf-8"), node)
    (command,) = [c for c in commands if command_part in c]
    commands[command] = tuple(dataclasses.replace(e, stdout=_scaled(e.stdout, factor)) for e in commands[command])
    path.write_text(render_node_file(node, commands), encoding="utf-8")
    return command
