"""The recorded outputs behind a run's items (``--recording DIR``): raw evidence and per-size tables."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_gpufabric.errors import GpufabricError, UsageError
from pytest_gpufabric.recording.nodefile import Episode, NodeCommands
from pytest_gpufabric.recording.store import RecordingStore


@dataclass
class RecordedOutputs:
    """Looks up the recorded episode of an item's command; node files are read once, on first use."""

    directory: Path | None
    _nodes: dict[str, NodeCommands] = field(default_factory=dict)

    @classmethod
    def open(cls, directory: Path | None) -> RecordedOutputs:
        if directory is not None and not (directory / "recording.yaml").is_file():
            raise UsageError(f"--recording {directory}: not a recording (no recording.yaml)")
        return cls(directory)

    @property
    def available(self) -> bool:
        return self.directory is not None

    def episode(self, node: str, command: str, item: str | None) -> Episode | None:
        """The episode recorded for ``item`` (else the last one) of ``command`` on ``node``; None if absent."""
        if self.directory is None:
            return None
        if node not in self._nodes:
            try:
                self._nodes[node] = RecordingStore(self.directory).load_node(node)
            except GpufabricError:
                self._nodes[node] = {}
        episodes = self._nodes[node].get(command) or ()
        own = [e for e in episodes if e.item == item]
        return (own or list(episodes) or [None])[-1]

    def outputs_of(self, record: dict[str, Any]) -> list[tuple[dict[str, Any], Episode | None]]:
        """Each command of a record with its recorded episode (None where the recording lacks it)."""
        return [(command, self.episode(str(command.get("node")), str(command.get("command")), record.get("node_id")))
                for command in record.get("commands") or ()]
