"""Exception types shared by every stage (inventory, transport, parsing, evaluation)."""

from __future__ import annotations

from collections.abc import Sequence


class GpufabricError(Exception):
    """Base class: every error of the plugin carries a one-line, user-facing message."""


class UsageError(GpufabricError):
    """Bad input from the user (inventory, profile, options); exits with pytest's usage-error code."""


class ProblemsError(UsageError):
    """Bad input with several problems; ``problems`` lists each, one line each (the message joins them)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: list[str] = list(problems)
        super().__init__("\n".join(self.problems))

    def __reduce__(self) -> tuple[type[ProblemsError], tuple[list[str]]]:
        return (type(self), (self.problems,))


class TransportError(GpufabricError):
    """The command could not be run at all (unreachable node, authentication, host key, channel)."""

    def __init__(self, node: str, reason: str) -> None:
        super().__init__(f"{node}: {reason}")
        self.node = node
        self.reason = reason


class RecordingError(TransportError):
    """Replay could not answer a command: no recording, or no matching command in it."""


class ParseError(GpufabricError):
    """A tool's output could not be understood; the message says what was expected and what was found."""

    def __init__(self, tool: str, reason: str) -> None:
        super().__init__(f"cannot parse {tool} output: {reason}")
        self.tool = tool
        self.reason = reason


class MeasurementMissing(GpufabricError):
    """A check could not obtain the value it judges; this is an error, never a pass."""


class Unreachable(MeasurementMissing):
    """Two NICs could not exchange traffic: a client that could not connect, or that did not end within its time
    limit (a dead link, a NIC that cannot be reached)."""


class ThresholdMissing(GpufabricError):
    """The profile has no expectation for a value a check judges; this is an error, never a pass."""
