"""The file of one node in a recording: ``nodes/<node>.yaml``, its episodes and their YAML text.

node: node01
commands:                       # sorted by command text
- command: ethtool bnxt0
  episodes:                     # in recorded order
  - exit_code: 0
    duration_s: 0.041
    item: suites/acceptance/test_nic.py::test_link_speed[node01/bnxt0]
    run_id: 2026-11-20T10-00-00-4f3a
    stdout: |
      Settings for bnxt0:
      ...
    stderr: ''
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import yaml

from pytest_gpufabric.recording.yamltext import load_yaml, scalar

NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Episode:
    """One recorded execution of a command (already scrubbed)."""

    exit_code: int
    duration_s: float
    item: str | None
    run_id: str | None
    stdout: str
    stderr: str


EPISODE_KEYS: tuple[str, ...] = tuple(field.name for field in fields(Episode))
NodeCommands = Mapping[str, Sequence[Episode]]


class NodeFileInvalid(Exception):
    """A node file that cannot be read as a recording; the message is the one-line reason."""


def valid_node_name(node: str) -> bool:
    """Whether ``node`` can name a file under ``nodes/`` (no path separators, no leading dot)."""
    return bool(NODE_NAME.fullmatch(node))


def render_node_file(node: str, commands: NodeCommands) -> str:
    """The YAML text of a node file: commands sorted, episodes in the given order.

    The text is checked to read back to the same data; should a literal block ever not, the file is
    written with quoted scalars only, which always reads back exactly."""
    text = _render(node, commands, blocks=True)
    if _reads_back(text, node, commands):
        return text
    return _render(node, commands, blocks=False)


def parse_node_file(text: str, node: str) -> dict[str, tuple[Episode, ...]]:
    """The commands and episodes of a node file; ``NodeFileInvalid`` says what is wrong."""
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise NodeFileInvalid(_yaml_problem(exc)) from None
    if not isinstance(data, dict):
        raise NodeFileInvalid("expected a mapping with 'node' and 'commands'")
    if data.get("node") != node:
        raise NodeFileInvalid(f"'node' is {data.get('node')!r}, expected {node!r}")
    entries = data.get("commands")
    if not isinstance(entries, list):
        raise NodeFileInvalid("'commands' must be a list")
    commands: dict[str, tuple[Episode, ...]] = {}
    for position, entry in enumerate(entries, start=1):
        command, episodes = _parse_command(entry, position)
        if command in commands:
            raise NodeFileInvalid(f"command {command!r} is listed twice")
        commands[command] = episodes
    return commands


def _parse_command(entry: Any, position: int) -> tuple[str, tuple[Episode, ...]]:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        raise NodeFileInvalid(f"commands entry {position} has no 'command' text")
    command = entry["command"]
    episodes = entry.get("episodes")
    if not isinstance(episodes, list) or not episodes:
        raise NodeFileInvalid(f"command {command!r} has no 'episodes' list")
    return command, tuple(_parse_episode(raw, command, number) for number, raw in enumerate(episodes, 1))


def _parse_episode(raw: Any, command: str, number: int) -> Episode:
    where = f"command {command!r} episode {number}"
    if not isinstance(raw, dict):
        raise NodeFileInvalid(f"{where} is not a mapping")
    missing = [key for key in EPISODE_KEYS if key not in raw]
    if missing:
        raise NodeFileInvalid(f"{where} lacks {', '.join(missing)}")
    exit_code, duration_s = raw["exit_code"], raw["duration_s"]
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        raise NodeFileInvalid(f"{where}: exit_code must be an integer, found {exit_code!r}")
    if not isinstance(duration_s, (int, float)) or isinstance(duration_s, bool) or not math.isfinite(duration_s):
        raise NodeFileInvalid(f"{where}: duration_s must be a number, found {duration_s!r}")
    for key in ("item", "run_id"):
        if raw[key] is not None and not isinstance(raw[key], str):
            raise NodeFileInvalid(f"{where}: {key} must be text or null, found {raw[key]!r}")
    for key in ("stdout", "stderr"):
        if not isinstance(raw[key], str):
            raise NodeFileInvalid(f"{where}: {key} must be text, found {type(raw[key]).__name__}")
    return Episode(exit_code, float(duration_s), raw["item"], raw["run_id"], raw["stdout"], raw["stderr"])


def _render(node: str, commands: NodeCommands, *, blocks: bool) -> str:
    lines = [f"node: {scalar(node, 0)}", "commands:"]
    for command in sorted(commands):
        lines.append(f"- command: {scalar(command, 2, blocks=blocks)}")
        lines.append("  episodes:")
        for episode in commands[command]:
            values = [getattr(episode, key) for key in EPISODE_KEYS]
            first, *rest = (f"{key}: {scalar(value, 4, blocks=blocks)}" for key, value in zip(EPISODE_KEYS, values, strict=True))
            lines.append(f"  - {first}")
            lines.extend(f"    {line}" for line in rest)
    if not commands:
        lines[-1] = "commands: []"
    return "\n".join(lines) + "\n"


def _reads_back(text: str, node: str, commands: NodeCommands) -> bool:
    try:
        parsed = parse_node_file(text, node)
    except NodeFileInvalid:
        return False
    return parsed == {command: tuple(episodes) for command, episodes in commands.items()}


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"invalid YAML at line {mark.line + 1}: {problem}" if mark is not None else f"invalid YAML: {problem}"
