"""A transport that replays a recording and records what a live transport returns."""

from __future__ import annotations

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.exclusive.leases import NodeGuard
from pytest_gpufabric.recording.modes import RecordMode
from pytest_gpufabric.recording.store import RecordingStore
from pytest_gpufabric.transport.base import CommandResult, Transport


class RecordingTransport:
    """Implements the ``Transport`` protocol over a ``RecordingStore`` and, where the mode needs one,
    a live transport. Live results are stored scrubbed; the caller gets them as they were. A
    ``TransportError`` of the live transport is not recorded (it is no output) and propagates.

    Mode ``once`` is resolved when the transport is made: it replays if the recording exists and was
    not created by this run (``store.run_id``), so all xdist workers of the recording run record.
    """

    def __init__(
        self,
        store: RecordingStore,
        mode: RecordMode,
        live: Transport | None = None,
        *,
        description: str | None = None,
    ) -> None:
        self.store = store
        self.mode = mode
        self._live = live
        self._replay_only = mode is RecordMode.NONE or (mode is RecordMode.ONCE and self._made_by_earlier_run())
        if self._replay_only:
            return
        if live is None:
            raise UsageError(f"record mode {mode} needs a live transport to record into {store.directory}")
        if mode is RecordMode.ALL and store.run_id is None:
            raise UsageError("record mode all needs a run id to tell this run's episodes from older ones")
        store.create(description)

    @property
    def replay_only(self) -> bool:
        """Whether every command is answered from the recording (modes none, and once on an existing one)."""
        return self._replay_only

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None,
            guard: NodeGuard | None = None) -> CommandResult:
        """A ``guard`` reaches the live transport only (a replayed command has nothing to lease)."""
        if self._replay_only:
            return self.store.find(node, command, item)
        if self.mode is RecordMode.NEW_EPISODES:
            replayed = self.store.find_unplayed(node, command, item)
            if replayed is not None:
                return replayed
        assert self._live is not None  # checked in __init__ for every mode that runs live
        result = self._live.run(node, command, timeout_s, item=item, guard=guard)
        self.store.add(result, item, replace_older_runs=self.mode is RecordMode.ALL)
        return result

    def stop_run(self, node: str, run_id: str) -> None:
        """Stops reach the live transport only, and are never recorded."""
        if self._live is not None and not self._replay_only:
            self._live.stop_run(node, run_id)

    def close(self) -> None:
        if self._live is not None:
            self._live.close()

    def _made_by_earlier_run(self) -> bool:
        if not self.store.exists():
            return False
        meta = self.store.meta()
        return self.store.run_id is None or meta.created_by_run != self.store.run_id
