"""A recording on disk: record episodes safely from many processes, look them up for replay.

Replay order: a command asked again gets the next episode recorded for it. Episodes recorded by the
asking test item are preferred (in their order, counted per item), which keeps replay deterministic
under pytest-xdist whichever worker runs the item; an item without episodes of its own gets the
command's episodes in recorded order. Once the episodes are used up, the last one repeats.
Counters live in the store object: one store per process, no global state.
"""

from __future__ import annotations

from collections.abc import Iterable

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout

from pytest_gpufabric.errors import RecordingError
from pytest_gpufabric.recording.atomic import remove_stale_temp_files, write_atomically
from pytest_gpufabric.recording.integrity import is_sealed, seal, unseal
from pytest_gpufabric.recording.meta import (
    DEFAULT_LOCK_TIMEOUT_S,
    LOCKS_DIR,
    NODES_DIR,
    RecordingMeta,
    RecordingMetaError,
    create_recording,
    load_recording_meta,
    mark_sealed,
    recording_exists,
)
from pytest_gpufabric.recording.nodefile import (
    Episode,
    NodeFileIndex,
    NodeFileInvalid,
    first_edited_entry,
    index_node_file,
    parse_node_file,
    render_node_file,
    valid_node_name,
)
from pytest_gpufabric.recording.scrub import Scrubber
from pytest_gpufabric.recording.yamltext import storable_text
from pytest_gpufabric.transport.base import CommandResult

NodeCommands = dict[str, tuple[Episode, ...]]


class _ReplayIndex:
    """The episodes of one node that replay may serve, by command and by (command, item); a command's
    episodes are read from the node file when the run first asks for it (``NodeFileIndex``)."""

    def __init__(self, episodes: NodeFileIndex, exclude_run: str | None) -> None:
        self._episodes = episodes
        self._exclude_run = exclude_run
        self._by_command: dict[str, tuple[Episode, ...]] = {}
        self._by_item: dict[tuple[str, str | None], tuple[Episode, ...]] = {}

    def commands(self) -> list[str]:
        """Every command the node file holds (for the closest match named when a command is not recorded)."""
        return self._episodes.commands()

    def episodes(self, command: str) -> tuple[Episode, ...]:
        """The episodes replay may serve for ``command`` (empty when none)."""
        found = self._by_command.get(command)
        if found is None:
            if command not in self._episodes:
                return ()
            exclude = self._exclude_run
            found = tuple(episode for episode in self._episodes.episodes(command) if exclude is None or episode.run_id != exclude)
            by_item: dict[tuple[str, str | None], list[Episode]] = {}
            for episode in found:
                by_item.setdefault((command, episode.item), []).append(episode)
            self._by_item.update({key: tuple(value) for key, value in by_item.items()})
            self._by_command[command] = found
        return found

    def own(self, command: str, item: str | None) -> tuple[Episode, ...] | None:
        """The episodes ``item`` recorded for ``command`` (after ``episodes(command)``)."""
        return self._by_item.get((command, item))


@dataclass
class _WrittenNode:
    """The text this process last wrote for a node, and its parsed form (spares re-parsing)."""

    text: str
    commands: NodeCommands = field(default_factory=dict)


class RecordingStore:
    """The recording in ``directory``; see the module docstring for the replay order.

    ``run_id`` names the run (shared by all xdist workers of one run); it is stored with each episode,
    lets ``add(..., replace_older_runs=True)`` drop what earlier runs recorded, and keeps episodes of
    the current run out of replay. ``scrubber`` is applied to what is stored and to what is looked up.
    """

    def __init__(
        self,
        directory: Path | str,
        scrubber: Scrubber | None = None,
        *,
        run_id: str | None = None,
        lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
    ) -> None:
        self.directory = Path(directory)
        self.scrubber = scrubber if scrubber is not None else Scrubber()
        self.run_id = run_id
        self.lock_timeout_s = lock_timeout_s
        self._meta: RecordingMeta | None = None
        self._replay: dict[str, _ReplayIndex] = {}
        self._played: dict[tuple[str, ...], int] = {}
        self._written: dict[str, _WrittenNode] = {}

    # -- the recording as a whole -------------------------------------------------------------

    def exists(self) -> bool:
        """Whether the folder holds a ``recording.yaml``."""
        return recording_exists(self.directory)

    def meta(self) -> RecordingMeta:
        """The checked ``recording.yaml`` (``RecordingMetaError`` if missing or unreadable)."""
        if self._meta is None:
            self._meta = load_recording_meta(self.directory)
        return self._meta

    def create(self, description: str | None = None) -> RecordingMeta:
        """Create the recording unless it exists (the description is scrubbed too)."""
        scrubbed = None if description is None else self.scrubber.scrub(description)
        self._meta = create_recording(self.directory, scrubbed, run_id=self.run_id)
        return self._meta

    def nodes(self) -> list[str]:
        """The names of the nodes with a file in the recording, sorted."""
        folder = self.directory / NODES_DIR
        if not folder.is_dir():
            return []
        return sorted(path.stem for path in folder.glob("*.yaml") if valid_node_name(path.stem))

    def node_path(self, node: str) -> Path:
        if not valid_node_name(node):
            raise RecordingError(node, f"node name {node!r} cannot name a recording file")
        return self.directory / NODES_DIR / f"{node}.yaml"

    # -- replay -------------------------------------------------------------------------------

    def find(self, node: str, command: str, item: str | None = None) -> CommandResult:
        """The next recorded result of ``command`` on ``node`` for ``item``; ``RecordingError`` when the
        recording, the node or the command is not recorded (the message names the closest command)."""
        scrubbed = storable_text(self.scrubber.scrub(command))
        index = self._replay_index(node)
        if index is None:
            recorded = ", ".join(self.nodes()) or "none"
            raise RecordingError(node, f"no recording for node {node} in {self.directory}; recorded nodes: {recorded}")
        if not self._episodes(node, index, scrubbed):
            raise RecordingError(node, _no_match_reason(scrubbed, index.commands()))
        episode = self._next_episode(node, scrubbed, item, index, repeat_last=True)
        assert episode is not None  # with repeat_last, the last episode is served again
        return _as_result(node, command, episode)

    def find_unplayed(self, node: str, command: str, item: str | None = None) -> CommandResult | None:
        """Like ``find``, but ``None`` where ``find`` would fail or repeat the last episode: what
        record mode ``new_episodes`` runs live. A corrupt node file still raises."""
        if not self.exists():
            return None
        scrubbed = storable_text(self.scrubber.scrub(command))
        index = self._replay_index(node)
        if index is None or not self._episodes(node, index, scrubbed):
            return None
        episode = self._next_episode(node, scrubbed, item, index, repeat_last=False)
        return None if episode is None else _as_result(node, command, episode)

    def _next_episode(
        self, node: str, scrubbed: str, item: str | None, index: _ReplayIndex, *, repeat_last: bool
    ) -> Episode | None:
        """The episode to serve next, counting it as played; ``None`` once used up unless ``repeat_last``."""
        own = index.own(scrubbed, item)
        key: tuple[str, ...]
        if own:
            episodes, key = own, (node, scrubbed, "item", str(item))
        else:
            episodes, key = index.episodes(scrubbed), (node, scrubbed, "any")
        position = self._played.get(key, 0)
        if position >= len(episodes) and not repeat_last:
            return None
        self._played[key] = position + 1
        return episodes[min(position, len(episodes) - 1)]

    def _replay_index(self, node: str) -> _ReplayIndex | None:
        """The node's replay index, read once per store; ``None`` when the node is not recorded."""
        if node not in self._replay:
            try:
                self.meta()
            except RecordingMetaError as exc:
                raise RecordingError(node, exc.reason) from None
            path = self.node_path(node)
            if not path.is_file():
                return None
            self._replay[node] = _ReplayIndex(self._index(node, path), exclude_run=self.run_id)
        return self._replay[node]

    def _index(self, node: str, path: Path) -> NodeFileIndex:
        """The node file's commands, their episodes parsed when asked for (the whole file where its layout
        is not the one this store writes, or where this process wrote it)."""
        text = self._read_text(node, path)
        written = self._written.get(node)
        try:
            if written is not None and written.text == text:
                return NodeFileIndex(parsed=written.commands)
            body = self._unsealed(node, text)
            return index_node_file(body, node) or NodeFileIndex(parsed=parse_node_file(body, node))
        except NodeFileInvalid as exc:
            raise RecordingError(node, f"corrupt recording file {path}: {exc}") from None

    def _unsealed(self, node: str, text: str) -> str:
        """The node file's text before its integrity line, checked (required where the recording is sealed)."""
        sealed = self.exists() and self.meta().integrity is not None
        return unseal(text, node, required=sealed)

    def _episodes(self, node: str, index: _ReplayIndex, command: str) -> tuple[Episode, ...]:
        try:
            return index.episodes(command)
        except NodeFileInvalid as exc:
            raise RecordingError(node, f"corrupt recording file {self.node_path(node)}: {exc}") from None

    # -- recording ----------------------------------------------------------------------------

    def add(self, result: CommandResult, item: str | None = None, *, replace_older_runs: bool = False) -> None:
        """Record ``result`` (scrubbed) as the next episode of its command on its node, creating the
        recording if needed. With ``replace_older_runs``, episodes of that command recorded under another
        run id are dropped first (re-recording). Safe against concurrent writers in other processes;
        the node file is replaced atomically."""
        self.add_many([result], item, replace_older_runs=replace_older_runs)

    def add_many(
        self, results: Iterable[CommandResult], item: str | None = None, *, replace_older_runs: bool = False
    ) -> None:
        """Record several results in order, reading and writing each node file once (as ``add`` each)."""
        if replace_older_runs and self.run_id is None:
            raise ValueError("replace_older_runs needs the store to have a run_id")
        by_node: dict[str, list[tuple[str, Episode]]] = {}
        for result in results:
            by_node.setdefault(result.node, []).append(self._episode(result, item))
        if by_node and not self.exists():
            self.create()
        for node, episodes in by_node.items():
            self._append(node, episodes, replace_older_runs)

    def _episode(self, result: CommandResult, item: str | None) -> tuple[str, Episode]:
        command = storable_text(self.scrubber.scrub(result.command))
        return command, Episode(
            exit_code=result.exit_code,
            duration_s=round(float(result.duration_s), 3),
            item=item,
            run_id=self.run_id,
            stdout=storable_text(self.scrubber.scrub(result.stdout)),
            stderr=storable_text(self.scrubber.scrub(result.stderr)),
        )

    def _append(self, node: str, episodes: list[tuple[str, Episode]], replace_older_runs: bool) -> None:
        path = self.node_path(node)
        lock_path = self.directory / LOCKS_DIR / f"{path.name}.lock"
        lock_path.parent.mkdir(exist_ok=True)
        try:
            with FileLock(lock_path, timeout=self.lock_timeout_s):
                remove_stale_temp_files(path)
                _, commands = self._read(node, path) if path.is_file() else ("", {})
                updated = dict(commands)
                for command, episode in episodes:
                    kept = updated.get(command, ())
                    if replace_older_runs:
                        kept = tuple(old for old in kept if old.run_id == self.run_id)
                    updated[command] = (*kept, episode)
                text = seal(render_node_file(node, updated))
                write_atomically(path, text)
                self._written[node] = _WrittenNode(text, updated)
        except Timeout:
            raise RecordingError(node, f"timed out after {self.lock_timeout_s:g}s waiting for lock {lock_path}") from None

    # -- integrity ----------------------------------------------------------------------------

    def seal(self) -> list[str]:
        """Give every node file its integrity line (read whole first, then written again atomically with each
        entry's digest), then mark the recording sealed; what it did, one line a node file. A node file that cannot
        be read is refused (RecordingError) and nothing is marked."""
        self.meta()
        done = []
        for node in self.nodes():
            path = self.node_path(node)
            with self._node_lock(node, path):
                text = self._read_text(node, path)
                if is_sealed(text):
                    self._checked_whole(node, path, text, required=True)
                    done.append(f"{node}: already sealed")
                    continue
                try:
                    commands = parse_node_file(text, node)
                except NodeFileInvalid as exc:
                    raise RecordingError(node, f"corrupt recording file {path}: {exc}") from None
                write_atomically(path, seal(render_node_file(node, commands)))
                done.append(f"{node}: sealed ({len(commands)} commands)")
        self._meta = mark_sealed(self.directory)
        return done

    def check(self) -> list[str]:
        """Every node file read whole and checked against its integrity line and its entries' digests (required
        where the recording is sealed); one line a node file that is not right."""
        required = self.meta().integrity is not None
        problems = []
        for node in self.nodes():
            path = self.node_path(node)
            try:
                self._checked_whole(node, path, self._read_text(node, path), required=required)
            except RecordingError as exc:
                problems.append(str(exc))
        return problems

    def _checked_whole(self, node: str, path: Path, text: str, *, required: bool) -> None:
        try:
            body = unseal(text, node, required=required)
            problem = first_edited_entry(body, node)
        except NodeFileInvalid as exc:
            problem = str(exc)
        if problem is not None:
            raise RecordingError(node, f"corrupt recording file {path}: {problem}")

    def _node_lock(self, node: str, path: Path) -> FileLock:
        lock_path = self.directory / LOCKS_DIR / f"{path.name}.lock"
        lock_path.parent.mkdir(exist_ok=True)
        return FileLock(lock_path, timeout=self.lock_timeout_s)

    def load_node(self, node: str) -> NodeCommands:
        """Everything recorded for ``node`` as it is on disk now (empty if the node has no file)."""
        path = self.node_path(node)
        return self._read(node, path)[1] if path.is_file() else {}

    def _read(self, node: str, path: Path) -> tuple[str, NodeCommands]:
        text = self._read_text(node, path)
        written = self._written.get(node)
        if written is not None and written.text == text:
            return text, written.commands
        try:
            return text, parse_node_file(self._unsealed(node, text), node)
        except NodeFileInvalid as exc:
            raise RecordingError(node, f"corrupt recording file {path}: {exc}") from None

    @staticmethod
    def _read_text(node: str, path: Path) -> str:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RecordingError(node, f"cannot read recording file {path}: {_first_line(exc)}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise RecordingError(node, f"corrupt recording file {path}: line {line}: not UTF-8 text (cut inside a "
                                       "character, or written by another tool)") from None


def _as_result(node: str, command: str, episode: Episode) -> CommandResult:
    """A replayed episode as the transport's result, under the command as the caller wrote it."""
    return CommandResult(node, command, episode.stdout, episode.stderr, episode.exit_code, episode.duration_s)


def _no_match_reason(command: str, recorded: list[str]) -> str:
    closest = difflib.get_close_matches(command, recorded, n=1, cutoff=0.0)
    where = f"closest recorded: {closest[0]!r}" if closest else "the node has no recorded commands"
    return f"no recorded command matches {command!r}; {where}"


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
