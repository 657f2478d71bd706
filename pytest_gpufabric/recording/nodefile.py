"""The file of one node in a recording: ``nodes/<node>.yaml``, its episodes and their YAML text.

node: node01
commands:                       # sorted by command text
- command: ethtool bnxt0
  digest: 5d41402abc4b2a76      # of the command and its episodes (``recording.integrity``)
  episodes:                     # in recorded order
  - exit_code: 0
    duration_s: 0.041
    item: suites/acceptance/test_nic.py::test_link_speed[node01/bnxt0]
    run_id: 2026-11-20T10-00-00-4f3a
    stdout: |
      Settings for bnxt0:
      ...
    stderr: ''
# gpufabric-integrity: sha256=... bytes=...   (``recording.integrity``)
"""

from __future__ import annotations

import hashlib
import json
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
DIGEST_KEY = "digest"
DIGEST_HEX = 16


class NodeFileInvalid(Exception):
    """A node file that cannot be read as a recording; the message is the one-line reason."""


def entry_digest(command: str, episodes: Sequence[Episode]) -> str:
    """The digest of one command entry's data (its command and its episodes, whatever their YAML form)."""
    data = [command, [[getattr(episode, key) for key in EPISODE_KEYS] for episode in episodes]]
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_HEX]


def first_edited_entry(text: str, node: str) -> str | None:
    """Where a node file (without its integrity line) differs from what was written: the first command entry whose
    data does not match its digest, with its line; or its first invalid YAML; None when every entry matches."""
    try:
        index = index_node_file(text, node)
        if index is None:
            parse_node_file(text, node)
            return None
        for command in index.commands():
            index.episodes(command, check_digest=True)
    except NodeFileInvalid as exc:
        return str(exc)
    return None


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


class NodeFileIndex:
    """The commands of a node file, each command's episodes parsed when first asked for: a node file of a
    large run holds thousands of commands and megabytes of outputs, of which a replay asks for a few.

    Built by ``index_node_file`` from the layout ``render_node_file`` writes (one entry per command, each
    starting at a line ``- command: ...``), or from a file parsed whole (``NodeFileIndex(parsed=...)``).
    """

    def __init__(self, text: str = "", spans: Mapping[str, tuple[int, int, int, int]] | None = None,
                 parsed: Mapping[str, tuple[Episode, ...]] | None = None) -> None:
        self._text = text
        self._spans = dict(spans or {})  # command -> (start, end, first line number, entry position)
        self._parsed: dict[str, tuple[Episode, ...]] = dict(parsed or {})

    def commands(self) -> list[str]:
        """Every recorded command, in file order."""
        return list(self._spans or self._parsed)

    def __contains__(self, command: object) -> bool:
        return command in self._parsed or command in self._spans

    def episodes(self, command: str, *, check_digest: bool = False) -> tuple[Episode, ...]:
        """The episodes of ``command`` (``KeyError`` if not recorded, ``NodeFileInvalid`` if its entry is bad;
        with ``check_digest``, also if its data does not match the digest it was written with)."""
        found = self._parsed.get(command)
        if found is None or check_digest:
            start, end, first_line, position = self._spans[command]
            try:
                entries = load_yaml(self._text[start:end])
            except yaml.YAMLError as exc:
                raise NodeFileInvalid(_yaml_problem(exc, first_line - 1)) from None
            if not isinstance(entries, list) or len(entries) != 1:
                raise NodeFileInvalid(f"line {first_line}: commands entry {position} is not one command with its episodes")
            parsed_command, found = _parse_command(entries[0], position)
            if parsed_command != command:
                raise NodeFileInvalid(f"line {first_line}: commands entry {position} changed while it was read")
            written = entries[0].get(DIGEST_KEY)
            if check_digest and written is not None and written != entry_digest(command, found):
                raise NodeFileInvalid(f"line {first_line}: command {command!r} was changed after it was recorded "
                                      "(its data no longer matches its digest)")
            self._parsed[command] = found
        return found


_TOP_LEVEL_BREAK = re.compile(r"\n(?=[^ \n])")  # the line break before a line that starts in column 0
_ENTRY_START = "- command: "
_EPISODES_LINE = "\n  episodes:"


def index_node_file(text: str, node: str) -> NodeFileIndex | None:
    """The commands of a node file laid out as ``render_node_file`` writes it, found without parsing a single
    episode (``NodeFileIndex``); ``None`` for any other layout, which ``parse_node_file`` then reads whole.
    Raises ``NodeFileInvalid`` for what ``parse_node_file`` would refuse in the node name and command texts."""
    tops = [match.start() + 1 for match in _TOP_LEVEL_BREAK.finditer(text)]
    if not text.startswith("node:") or len(tops) < 2 or not text.startswith("commands:\n", tops[0]) or not all(
            text.startswith(_ENTRY_START, start) for start in tops[1:]):
        return None
    starts = tops[1:]
    ends = [*starts[1:], len(text)]
    heads = [text.find(_EPISODES_LINE, start, end) for start, end in zip(starts, ends)]
    if -1 in heads:
        return None
    header = _load_part(text[: starts[0]], 0)
    try:
        names = load_yaml("".join(text[start : head + 1] for start, head in zip(starts, heads)))  # up to "  episodes:"
    except yaml.YAMLError:
        return None  # read whole, which names the line
    if not isinstance(header, dict) or not isinstance(names, list) or len(names) != len(starts):
        return None
    if header.get("node") != node:
        raise NodeFileInvalid(f"'node' is {header.get('node')!r}, expected {node!r}")
    spans: dict[str, tuple[int, int, int, int]] = {}
    line = text.count("\n", 0, starts[0]) + 1
    for position, (entry, start, end) in enumerate(zip(names, starts, ends), start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
            raise NodeFileInvalid(f"commands entry {position} has no 'command' text")
        if entry["command"] in spans:
            raise NodeFileInvalid(f"command {entry['command']!r} is listed twice")
        spans[entry["command"]] = (start, end, line, position)
        line += text.count("\n", start, end)
    return NodeFileIndex(text, spans)


def _load_part(text: str, first_line: int) -> Any:
    """One part of a node file as YAML (``first_line``: where it starts in the file, for the error message)."""
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        raise NodeFileInvalid(_yaml_problem(exc, first_line)) from None


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
        lines.append(f"  {DIGEST_KEY}: '{entry_digest(command, commands[command])}'")
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


def _yaml_problem(exc: yaml.YAMLError, line_offset: int = 0) -> str:
    """The one-line reason; ``line_offset``: lines of the file before the part parsed."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML at line {mark.line + 1 + line_offset}: {problem}"
