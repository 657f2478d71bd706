"""Recording and replay of command outputs, so acceptance suites run offline (format: README, "Recording and replay")."""

from __future__ import annotations

from pytest_gpufabric.recording.meta import (
    RecordingMeta,
    RecordingMetaError,
    create_recording,
    load_recording_meta,
)
from pytest_gpufabric.recording.modes import RecordMode
from pytest_gpufabric.recording.nodefile import Episode
from pytest_gpufabric.recording.scrub import DEFAULT_PATTERNS, SCRUBBED, Scrubber
from pytest_gpufabric.recording.store import RecordingStore
from pytest_gpufabric.recording.transport import RecordingTransport

__all__ = [
    "DEFAULT_PATTERNS",
    "SCRUBBED",
    "Episode",
    "RecordMode",
    "RecordingMeta",
    "RecordingMetaError",
    "RecordingStore",
    "RecordingTransport",
    "Scrubber",
    "create_recording",
    "load_recording_meta",
]
