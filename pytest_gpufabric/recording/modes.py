"""Record modes, named and behaving as in vcrpy / pytest-recording."""

from __future__ import annotations

import enum

from pytest_gpufabric.errors import UsageError


class RecordMode(str, enum.Enum):
    """What a ``RecordingTransport`` does with a command.

    - ``once``: a recording that exists (made by an earlier run) is replayed only, and an unmatched
      command is an error; with no recording, every command runs live and is recorded.
    - ``new_episodes``: replay what is recorded; run live and record what is not (or is used up).
    - ``all``: run everything live and record it, replacing what earlier runs recorded for a command.
    - ``none``: replay only, never run live (``--replay=DIR``).
    """

    ONCE = "once"
    NEW_EPISODES = "new_episodes"
    ALL = "all"
    NONE = "none"

    @classmethod
    def parse(cls, text: str) -> RecordMode:
        """The mode named ``text``; ``UsageError`` listing the modes otherwise."""
        try:
            return cls(text.strip().lower().replace("-", "_"))
        except ValueError:
            names = ", ".join(mode.value for mode in cls)
            raise UsageError(f"unknown record mode {text!r} (expected one of: {names})") from None

    def __str__(self) -> str:
        return self.value
